/**
 * The withdrawal body families' judges, called directly: the valid withdrawal and the bodies that
 * break §2.1's types (src/checks/bodies.ts), held to the refusal table, and the bodies the document
 * is silent on (silent-values.ts), which may only warn.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyBodyMutation,
  bodiesFamily,
  bodyCases,
  paymentAccepted,
  type BodyCase,
} from '../src/checks/bodies.ts';
import { verdictOf } from '../src/checks/check.ts';
import { DEFAULT_RUN_SHAPE } from '../src/checks/family.ts';
import { silentValueCases, silentValuesFamily } from '../src/checks/silent-values.ts';
import type { WithdrawBody } from '../src/spec/requests.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { answered } from './support/exchanges.ts';

const spec = loadSpec();
/** A generated case as the tables below list it: id, clause, level, needs and the mutation it sends. */
const caseRow = (c: BodyCase): string[] => [
  c.check.id,
  c.check.clause,
  c.check.level,
  c.check.needs.join(','),
  JSON.stringify(c.mutation),
];
const BODY: WithdrawBody = {
  amount: 0.01,
  code: 'W-1',
  name: 'Ana',
  key_type: 'EVP',
  document: '123',
  key_pix: 'k-1',
  PostBackUrl: 'https://h.example/hook',
  check_code: true,
};

describe('PAYMENT-ACCEPTED: a valid withdrawal gets 200 (§4.2)', () => {
  it('is a must check that needs a payout', () => {
    assert.deepEqual(
      [paymentAccepted.id, paymentAccepted.clause, paymentAccepted.level, paymentAccepted.needs],
      ['PAYMENT-ACCEPTED', '§4.2, §2.1, §5.2', 'must', ['payout']],
    );
  });

  it('passes 200 only; 201 and 202 are not the success status of §4.2', () => {
    assert.deepEqual(paymentAccepted.judge(answered(200)), []);
    for (const status of [201, 202, 400, 500])
      assert.deepEqual(paymentAccepted.judge(answered(status, '{"e":1}')), [
        { verdict: 'FAILED', expected: '200', actual: `${status} application/json {"e":1}` },
      ]);
  });

  it('points at client_secret when the refusal is for the credentials', () => {
    const hint =
      '200 (refused for its credentials with a token just issued: check PIX_CLIENT_SECRET first; if it is right, the provider refuses a withdrawal §4.2 allows)';
    for (const status of [401, 403])
      assert.deepEqual(paymentAccepted.judge(answered(status)), [
        { verdict: 'FAILED', expected: hint, actual: `${status} application/json {}` },
      ]);
  });
});

describe('the bodies that break §2.1 (§4.2, §7)', () => {
  it('one wrong-type case per field of §2.1, then a body that is not JSON, none, and an array', () => {
    assert.deepEqual(
      bodyCases(spec).map(caseRow),
      [
        ['PAYMENT-BODY-WRONG-TYPE-AMOUNT', '§2.1, §7', 'must', 'payout', '{"kind":"set","field":"amount","value":{"wrong_type":true}}'],
        ['PAYMENT-BODY-WRONG-TYPE-CODE', '§2.1, §7', 'must', 'payout', '{"kind":"set","field":"code","value":{"wrong_type":true}}'],
        ['PAYMENT-BODY-WRONG-TYPE-NAME', '§2.1, §7', 'must', 'payout', '{"kind":"set","field":"name","value":{"wrong_type":true}}'],
        ['PAYMENT-BODY-WRONG-TYPE-KEY-TYPE', '§2.1, §7', 'must', 'payout', '{"kind":"set","field":"key_type","value":{"wrong_type":true}}'],
        ['PAYMENT-BODY-WRONG-TYPE-DOCUMENT', '§2.1, §7', 'must', 'payout', '{"kind":"set","field":"document","value":{"wrong_type":true}}'],
        ['PAYMENT-BODY-WRONG-TYPE-KEY-PIX', '§2.1, §7', 'must', 'payout', '{"kind":"set","field":"key_pix","value":{"wrong_type":true}}'],
        ['PAYMENT-BODY-WRONG-TYPE-POSTBACKURL', '§2.1, §7', 'must', 'payout', '{"kind":"set","field":"PostBackUrl","value":{"wrong_type":true}}'],
        ['PAYMENT-BODY-WRONG-TYPE-CHECK-CODE', '§2.1, §7', 'must', 'payout', '{"kind":"set","field":"check_code","value":{"wrong_type":true}}'],
        ['PAYMENT-BODY-NOT-JSON', '§4.2, §2.1, §7', 'must', 'payout', '{"kind":"raw","body":"amount=0.01&code=not-json"}'],
        ['PAYMENT-BODY-EMPTY', '§4.2, §2.1, §7', 'must', 'payout', '{"kind":"raw"}'],
        ['PAYMENT-BODY-ARRAY', '§4.2, §2.1, §7', 'must', 'payout', '{"kind":"raw","body":"[]"}'],
      ],
    ); // prettier-ignore
    const [empty] = bodyCases(spec).filter((c) => c.check.id === 'PAYMENT-BODY-EMPTY');
    assert.deepEqual(empty?.mutation, { kind: 'raw', body: undefined });
  });

  it('titles each case as the test that judges it reads', () => {
    assert.deepEqual(Object.fromEntries([...bodyCases(spec), ...silentValueCases(spec)].map((c) => [c.check.id, c.check.title])), {
      'PAYMENT-BODY-WRONG-TYPE-AMOUNT': 'Refuses a withdrawal whose amount is not a number',
      'PAYMENT-BODY-WRONG-TYPE-CODE': 'Refuses a withdrawal whose code is not a string',
      'PAYMENT-BODY-WRONG-TYPE-NAME': 'Refuses a withdrawal whose name is not a string',
      'PAYMENT-BODY-WRONG-TYPE-KEY-TYPE': 'Refuses a withdrawal whose key_type is not a string',
      'PAYMENT-BODY-WRONG-TYPE-DOCUMENT': 'Refuses a withdrawal whose document is not a string',
      'PAYMENT-BODY-WRONG-TYPE-KEY-PIX': 'Refuses a withdrawal whose key_pix is not a string',
      'PAYMENT-BODY-WRONG-TYPE-POSTBACKURL': 'Refuses a withdrawal whose PostBackUrl is not a string',
      'PAYMENT-BODY-WRONG-TYPE-CHECK-CODE': 'Refuses a withdrawal whose check_code is not a boolean',
      'PAYMENT-BODY-NOT-JSON': 'Refuses a withdrawal with a body that is not JSON',
      'PAYMENT-BODY-EMPTY': 'Refuses a withdrawal with an empty body',
      'PAYMENT-BODY-ARRAY': 'Refuses a withdrawal with a JSON array instead of an object',
      'PAYMENT-BODY-MISSING-AMOUNT': 'Refuses a withdrawal without amount',
      'PAYMENT-BODY-MISSING-CODE': 'Refuses a withdrawal without code',
      'PAYMENT-BODY-MISSING-NAME': 'Refuses a withdrawal without name',
      'PAYMENT-BODY-MISSING-KEY-TYPE': 'Refuses a withdrawal without key_type',
      'PAYMENT-BODY-MISSING-DOCUMENT': 'Refuses a withdrawal without document',
      'PAYMENT-BODY-MISSING-KEY-PIX': 'Refuses a withdrawal without key_pix',
      'PAYMENT-BODY-MISSING-POSTBACKURL': 'Refuses a withdrawal without PostBackUrl',
      'PAYMENT-BODY-AMOUNT-ZERO': 'Refuses a withdrawal with an amount of 0',
      'PAYMENT-BODY-AMOUNT-NEGATIVE': 'Refuses a withdrawal with a negative amount',
      'PAYMENT-BODY-AMOUNT-THREE-DECIMALS': 'Refuses a withdrawal with an amount with three decimals',
      'PAYMENT-BODY-POSTBACK-NOT-URL': 'Refuses a withdrawal with a PostBackUrl that is not a URL',
      'PAYMENT-BODY-KEY-TYPE-UNKNOWN': 'Refuses a withdrawal with an unknown key_type',
      'PAYMENT-BODY-NAME-TOO-LONG': 'Refuses a withdrawal with a 300-character name',
    });
  }); // prettier-ignore

  it('holds the Pix key fields to 400 or 403 (§5.4: a key invalid), every other case to 400', () => {
    const bands = (id: string) => {
      const found = bodyCases(spec).find((c) => c.check.id === id);
      assert.ok(found !== undefined, id);
      return [200, 400, 401, 403, 500].map((s) => verdictOf(found.check.judge(answered(s))));
    };
    for (const id of ['PAYMENT-BODY-WRONG-TYPE-KEY-PIX', 'PAYMENT-BODY-WRONG-TYPE-KEY-TYPE'])
      assert.deepEqual(bands(id), ['FAILED', 'PASSED', 'WARNING', 'PASSED', 'FAILED'], id);
    for (const id of ['PAYMENT-BODY-WRONG-TYPE-AMOUNT', 'PAYMENT-BODY-WRONG-TYPE-DOCUMENT', 'PAYMENT-BODY-WRONG-TYPE-CHECK-CODE', 'PAYMENT-BODY-NOT-JSON', 'PAYMENT-BODY-EMPTY', 'PAYMENT-BODY-ARRAY'])
      assert.deepEqual(bands(id), ['FAILED', 'PASSED', 'WARNING', 'WARNING', 'FAILED'], id);
  }); // prettier-ignore

  it('sends the valid body with one field set or left out, or the raw text, or nothing', () => {
    assert.equal(applyBodyMutation(BODY, { kind: 'raw', body: '[]' }), '[]');
    assert.equal(applyBodyMutation(BODY, { kind: 'raw', body: undefined }), undefined);
    assert.deepEqual(JSON.parse(applyBodyMutation(BODY, { kind: 'set', field: 'amount', value: { wrong_type: true } }) ?? ''), { ...BODY, amount: { wrong_type: true } }); // prettier-ignore
    assert.deepEqual(JSON.parse(applyBodyMutation(BODY, { kind: 'missing', field: 'key_pix' }) ?? ''), {
      amount: 0.01,
      code: 'W-1',
      name: 'Ana',
      key_type: 'EVP',
      document: '123',
      PostBackUrl: 'https://h.example/hook',
      check_code: true,
    });
  });

  it('sends one valid withdrawal and one per case', () => {
    assert.equal(bodiesFamily.withdrawals(spec, DEFAULT_RUN_SHAPE), 12);
    assert.equal(bodiesFamily.name, 'request bodies');
    assert.deepEqual(
      bodiesFamily.checks(spec).map((c) => c.id),
      ['PAYMENT-ACCEPTED', ...bodyCases(spec).map((c) => c.check.id)],
    );
  });
});

describe('the bodies the document is silent on (§2.1, §8 not shown): acceptance warns, never fails', () => {
  it('one case per field that may not be omitted, and one per value no Pix could carry', () => {
    assert.deepEqual(
      silentValueCases(spec).map(caseRow),
      [
        ['PAYMENT-BODY-MISSING-AMOUNT', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"missing","field":"amount"}'],
        ['PAYMENT-BODY-MISSING-CODE', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"missing","field":"code"}'],
        ['PAYMENT-BODY-MISSING-NAME', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"missing","field":"name"}'],
        ['PAYMENT-BODY-MISSING-KEY-TYPE', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"missing","field":"key_type"}'],
        ['PAYMENT-BODY-MISSING-DOCUMENT', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"missing","field":"document"}'],
        ['PAYMENT-BODY-MISSING-KEY-PIX', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"missing","field":"key_pix"}'],
        ['PAYMENT-BODY-MISSING-POSTBACKURL', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"missing","field":"PostBackUrl"}'],
        ['PAYMENT-BODY-AMOUNT-ZERO', '§8 (not shown)', 'should', 'provider,payout', '{"kind":"set","field":"amount","value":0}'],
        ['PAYMENT-BODY-AMOUNT-NEGATIVE', '§8 (not shown)', 'should', 'provider,payout', '{"kind":"set","field":"amount","value":-0.01}'],
        ['PAYMENT-BODY-AMOUNT-THREE-DECIMALS', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"set","field":"amount","value":0.011}'],
        ['PAYMENT-BODY-POSTBACK-NOT-URL', '§2.1 (not shown), §6', 'should', 'provider,payout', '{"kind":"set","field":"PostBackUrl","value":"not a url"}'],
        ['PAYMENT-BODY-KEY-TYPE-UNKNOWN', '§2.1 (not shown)', 'should', 'provider,payout', '{"kind":"set","field":"key_type","value":"NOT_A_KEY_TYPE"}'],
        ['PAYMENT-BODY-NAME-TOO-LONG', '§8 (not shown)', 'should', 'provider,payout', `{"kind":"set","field":"name","value":"${'N'.repeat(300)}"}`],
      ],
    ); // prettier-ignore
    assert.equal(silentValuesFamily.withdrawals(spec, DEFAULT_RUN_SHAPE), 13);
    assert.deepEqual(
      silentValuesFamily.checks(spec).map((c) => c.id),
      silentValueCases(spec).map((c) => c.check.id),
    );
    assert.equal(silentValuesFamily.name, 'silent values');
  });

  it('warns an acceptance and a server error with the Pix rule the case rests on, and passes any refusal', () => {
    const why = {
      'PAYMENT-BODY-MISSING-DOCUMENT': 'which fields are required is not shown (§2.1), but a withdrawal without document leaves the provider to invent or ignore it',
      'PAYMENT-BODY-AMOUNT-ZERO': 'a Pix moves at least 0.01 BRL',
      'PAYMENT-BODY-AMOUNT-NEGATIVE': 'a withdrawal of a negative amount is meaningless',
      'PAYMENT-BODY-AMOUNT-THREE-DECIMALS': 'Pix amounts are in BRL with two decimals',
      'PAYMENT-BODY-POSTBACK-NOT-URL': 'the webhook (§6) cannot be posted to an address that is not one',
      'PAYMENT-BODY-KEY-TYPE-UNKNOWN': 'the central bank knows five key types: CPF, CNPJ, PHONE, EMAIL and EVP',
      'PAYMENT-BODY-NAME-TOO-LONG': 'Pix messages carry names of at most 140 characters',
    };
    for (const [id, reason] of Object.entries(why)) {
      const found = silentValueCases(spec).find((c) => c.check.id === id);
      assert.ok(found !== undefined, id);
      const expected = `refused (${reason}); the document does not say, so this is only a warning`;
      assert.deepEqual(found.check.judge(answered(200)), [{ verdict: 'WARNING', expected, actual: 'accepted: 200 application/json {}' }], id);
      assert.deepEqual(found.check.judge(answered(502)), [{ verdict: 'WARNING', expected, actual: 'server error: 502 application/json {}' }], id);
      for (const status of [400, 401, 403, 422]) assert.deepEqual(found.check.judge(answered(status)), [], `${id} ${status}`);
    }
  }); // prettier-ignore
});
