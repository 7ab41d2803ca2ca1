/**
 * The judges of every response (src/checks/responses.ts) and of check_code (check-code.ts), called
 * directly: the statuses §7 lists, JSON bodies, the spec's schema, a complete answer; a duplicate
 * refused or allowed as check_code says (§2.1), the race of copies sent together, and what the
 * default of check_code is read as.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  DUPLICATE_CASES,
  checkCodeDefault,
  checkCodeFamily,
  concurrentDuplicateRefused,
  duplicateAllowedWhenUnchecked,
  duplicateRefusedWhenChecked,
  laterDuplicateRefused,
  raceUnjudgeable,
} from '../src/checks/check-code.ts';
import { DEFAULT_RUN_SHAPE } from '../src/checks/family.ts';
import { paymentAccepted } from '../src/checks/bodies.ts';
import {
  ANSWER_CHECKS,
  RESPONSE_CHECKS,
  jsonPayload,
  responseComplete,
  responsesFamily,
  schemaConforms,
  statusDocumented,
  type JudgedResponse,
} from '../src/checks/responses.ts';
import type { Exchange } from '../src/evidence/exchange.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { answered } from './support/exchanges.ts';

const spec = loadSpec();
const judged = (exchange: Exchange, extra: Partial<JudgedResponse> = {}): JudgedResponse => ({
  exchange,
  documented: [200, 400, 401, 403, 500],
  alsoAllowed: [],
  validate: undefined,
  ...extra,
});

describe('what every response is held to (§7, payloads)', () => {
  it('four must checks, three on the answer and one on its completeness, and one should check of error bodies, in families that send nothing', () => {
    assert.deepEqual(
      ANSWER_CHECKS.map(({ id, clause, level, needs }) => [id, clause, level, needs.length]),
      [
        ['RESPONSE-STATUS-DOCUMENTED', '§7', 'must', 0],
        ['RESPONSE-JSON', 'payloads, §7', 'must', 0],
        ['RESPONSE-SCHEMA', '§2.3, §4.1, §7', 'must', 0],
        ['RESPONSE-COMPLETE', '§7', 'must', 0],
        ['RESPONSE-ERROR-NO-INTERNALS', '§7 (not shown)', 'should', 0],
      ],
    );
    assert.deepEqual(RESPONSE_CHECKS, [statusDocumented, jsonPayload, schemaConforms]);
    // The error bodies' check is its own family's (leaked-internals.ts), held to by every answer all the same.
    assert.deepEqual(responsesFamily.checks(spec), [...RESPONSE_CHECKS, responseComplete]);
    assert.equal(responsesFamily.withdrawals(spec, DEFAULT_RUN_SHAPE), 0);
    assert.equal(responsesFamily.name, 'every response');
  });
});

describe('RESPONSE-STATUS-DOCUMENTED: a status §7 lists (§7)', () => {
  it('passes a listed status and one the case tolerates, and fails the rest listing what was allowed', () => {
    for (const status of [200, 400, 401, 403, 500])
      assert.deepEqual(statusDocumented.judge(judged(answered(status))), [], String(status));
    assert.deepEqual(statusDocumented.judge(judged(answered(406), { alsoAllowed: [406] })), []);
    assert.deepEqual(statusDocumented.judge(judged(answered(422, '{"e":1}'), { alsoAllowed: [406] })), [
      { verdict: 'FAILED', expected: 'one of 200, 400, 401, 403, 500, 406', actual: '422 application/json {"e":1}' },
    ]); // prettier-ignore
    assert.deepEqual(statusDocumented.judge(judged(answered(201))), [
      { verdict: 'FAILED', expected: 'one of 200, 400, 401, 403, 500', actual: '201 application/json {}' },
    ]);
  });
});

describe('RESPONSE-JSON: a JSON body with a JSON content type (payloads, §7)', () => {
  const expected = 'a JSON body with a JSON content type';
  const judge = (body: string, contentType = 'application/json', status = 400) =>
    jsonPayload.judge(judged(answered(status, body, contentType)));

  it('passes JSON of any kind under application/json or a +json type', () => {
    assert.deepEqual(judge('{"e":1}'), []);
    assert.deepEqual(judge('[]', 'application/problem+json; charset=utf-8'), []);
    assert.deepEqual(judge('"text"'), []);
  });

  it('fails an empty or blank body, saying its status', () => {
    assert.deepEqual(judge(''), [{ verdict: 'FAILED', expected, actual: 'an empty body (400)' }]);
    assert.deepEqual(judge(' \n', 'application/json', 500), [{ verdict: 'FAILED', expected, actual: 'an empty body (500)' }]); // prettier-ignore
  });

  it('names each problem: the content type, the body, or both', () => {
    assert.deepEqual(judge('{"e":1}', 'text/plain'), [
      { verdict: 'FAILED', expected, actual: `content-type 'text/plain': 400 text/plain {"e":1}` },
    ]);
    assert.deepEqual(judge('{"e":1}', ''), [
      { verdict: 'FAILED', expected, actual: `content-type '(none)': 400 (no content-type) {"e":1}` },
    ]);
    assert.deepEqual(judge('{bad'), [
      {
        verdict: 'FAILED',
        expected,
        actual: 'a body that does not parse as JSON: 400 application/json {bad',
      },
    ]);
    assert.deepEqual(judge('<html>', 'text/html'), [
      { verdict: 'FAILED', expected, actual: `content-type 'text/html' and a body that does not parse as JSON: 400 text/html <html>` }, // prettier-ignore
    ]);
  });
});

describe("RESPONSE-SCHEMA: a body valid against the spec's schema (§2.3, §4.1, §7)", () => {
  const validate = new Ajv2020({ allErrors: true }).compile({
    type: 'object',
    properties: { access_token: { type: 'string' }, data: { type: 'object', properties: { n: { type: 'integer' } } } }, // prettier-ignore
  });

  it('passes a valid body, and judges nothing without a body or a schema', () => {
    assert.deepEqual(schemaConforms.judge(judged(answered(200, '{"access_token":"t"}'), { validate })), []);
    assert.deepEqual(schemaConforms.judge(judged(answered(200, 'not json'), { validate })), []);
    assert.deepEqual(schemaConforms.judge(judged(answered(200, '"t"'))), []);
  });

  it('fails an invalid body, naming each part that breaks the schema', () => {
    assert.deepEqual(schemaConforms.judge(judged(answered(200, '"just-a-string"'), { validate })), [
      { verdict: 'FAILED', expected: "a 200 body valid against the spec's schema", actual: '(body) must be object: 200 application/json "just-a-string"' }, // prettier-ignore
    ]);
    assert.deepEqual(
      schemaConforms.judge(judged(answered(400, '{"access_token":1,"data":{"n":1.5}}'), { validate })).map((v) => v.actual),
      ['/access_token must be string; /data/n must be integer: 400 application/json {"access_token":1,"data":{"n":1.5}}'],
    ); // prettier-ignore
  });

  it('still fails when the validator gives no errors or no message', () => {
    const bare = Object.assign(() => false, { errors: null }) as unknown as ValidateFunction;
    assert.deepEqual(schemaConforms.judge(judged(answered(200, '{}'), { validate: bare })).map((v) => v.actual), [': 200 application/json {}']); // prettier-ignore
    const silent = Object.assign(() => false, { errors: [{ instancePath: '/a', keyword: 'x', schemaPath: '#', params: {} }] }) as unknown as ValidateFunction; // prettier-ignore
    assert.deepEqual(schemaConforms.judge(judged(answered(200, '{}'), { validate: silent })).map((v) => v.actual), ['/a : 200 application/json {}']); // prettier-ignore
  });
});

describe('RESPONSE-COMPLETE: a complete answer in time (§7)', () => {
  it('passes a complete answer and fails with what went wrong', () => {
    assert.deepEqual(responseComplete.judge({ failure: undefined }), []);
    assert.deepEqual(responseComplete.judge({ failure: 'the connection closed after 10 of 40 bytes' }), [
      { verdict: 'FAILED', expected: 'a complete HTTP response', actual: 'the connection closed after 10 of 40 bytes' },
    ]); // prettier-ignore
  });
});

const pair = (second: number, body = '{}') => ({ first: answered(200), second: answered(second, body) });

describe('check_code (§2.1): a duplicate refused when true, allowed when false', () => {
  it('four must checks that need the provider and a payout', () => {
    assert.deepEqual(
      checkCodeFamily
        .checks(spec)
        .map(({ id, clause, level, needs }) => [id, clause, level, needs.join(',')]),
      [
        ['CHECK-CODE-TRUE-REFUSES-DUPLICATE', '§2.1', 'must', 'provider,payout'],
        ['CHECK-CODE-FALSE-ALLOWS-DUPLICATE', '§2.1', 'must', 'provider,payout'],
        ['CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE', '§2.1', 'must', 'provider,payout'],
        ['CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE', '§2.1', 'must', 'provider,payout'],
      ],
    );
  });

  it('sends each case’s pair, the race’s withdrawals, one copy after them, an accepted code once its webhook arrived and the first code again', () => {
    assert.equal(checkCodeFamily.withdrawals(spec, DEFAULT_RUN_SHAPE), 12);
    assert.equal(checkCodeFamily.name, 'check_code');
    assert.equal(checkCodeFamily.withdrawals(spec, { ...DEFAULT_RUN_SHAPE, raceWidth: 5 }), 14);
    assert.deepEqual(
      DUPLICATE_CASES.map((c) => [c.checkCode, c.check?.id, c.clause]),
      [
        [true, 'CHECK-CODE-TRUE-REFUSES-DUPLICATE', '§2.1'],
        [false, 'CHECK-CODE-FALSE-ALLOWS-DUPLICATE', '§2.1'],
        [undefined, undefined, '§2.1 (not shown)'],
      ],
    );
  });

  it('with check_code true passes any 4xx for the duplicate, and fails an acceptance or anything else', () => {
    for (const status of [400, 409, 422, 499])
      assert.deepEqual(duplicateRefusedWhenChecked.judge(pair(status)), []);
    assert.deepEqual(duplicateRefusedWhenChecked.judge(pair(200, '{"id":"p-2"}')), [
      { verdict: 'FAILED', expected: 'the duplicate refused with a 4xx', actual: 'accepted: 200 application/json {"id":"p-2"}' },
    ]); // prettier-ignore
    assert.deepEqual(duplicateRefusedWhenChecked.judge(pair(299)).map((v) => v.actual), ['accepted: 299 application/json {}']); // prettier-ignore
    for (const status of [302, 399, 500, 503])
      assert.deepEqual(duplicateRefusedWhenChecked.judge(pair(status)), [
        {
          verdict: 'FAILED',
          expected: 'the duplicate refused with a 4xx',
          actual: `${status} application/json {}`,
        },
      ]);
  });

  it('later in the run passes any 4xx, and fails an acceptance or anything else naming the delay and the moment', () => {
    const moment = 'near the end of the run';
    for (const status of [400, 409, 422])
      assert.deepEqual(
        laterDuplicateRefused.judge({ exchange: answered(status), afterMs: 41_000, moment }),
        [],
      );
    assert.deepEqual(
      laterDuplicateRefused.judge({ exchange: answered(200, '{"id":"p-3"}'), afterMs: 41_260, moment }),
      [
        {
          verdict: 'FAILED',
          expected: 'the code refused with a 4xx, however long after its first withdrawal',
          actual:
            'accepted 41.3 s after the first withdrawal with the code was accepted, near the end of the run: 200 application/json {"id":"p-3"}',
        },
      ],
    );
    assert.deepEqual(
      laterDuplicateRefused
        .judge({ exchange: answered(500), afterMs: 2_500, moment: 'once its webhook had arrived' })
        .map((v) => v.actual),
      [
        'answered 2.5 s after the first withdrawal with the code was accepted, once its webhook had arrived: 500 application/json {}',
      ],
    );
  });

  it('with check_code false passes 200 only', () => {
    assert.deepEqual(duplicateAllowedWhenUnchecked.judge(pair(200)), []);
    for (const status of [201, 409, 500])
      assert.deepEqual(duplicateAllowedWhenUnchecked.judge(pair(status)), [
        { verdict: 'FAILED', expected: 'the second withdrawal accepted (200)', actual: `${status} application/json {}` },
      ]); // prettier-ignore
  });

  it('reads the default from the duplicate: refused with a 4xx is true, anything else false', () => {
    assert.equal(checkCodeDefault(answered(409)), 'true (a repeated code is refused with 409)');
    assert.equal(checkCodeDefault(answered(400)), 'true (a repeated code is refused with 400)');
    assert.equal(checkCodeDefault(answered(200)), 'false (a repeated code is answered 200)');
    assert.equal(checkCodeDefault(answered(500)), 'false (a repeated code is answered 500)');
  });
});

describe('CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE: at most one of the copies sent together (§2.1)', () => {
  const race = (...statuses: number[]) => statuses.map((s) => answered(s));

  it('passes one accepted or none', () => {
    assert.deepEqual(concurrentDuplicateRefused.judge(race(200, 409, 409)), []);
    assert.deepEqual(concurrentDuplicateRefused.judge(race(409, 409, 409)), []);
    assert.deepEqual(concurrentDuplicateRefused.judge([]), []);
  });

  it('fails two accepted or more, any 2xx counting, with every status', () => {
    assert.deepEqual(concurrentDuplicateRefused.judge(race(200, 201, 409)), [
      { verdict: 'FAILED', expected: 'at most one of 3 withdrawals with one code accepted', actual: '2 accepted: 200, 201, 409' },
    ]); // prettier-ignore
    assert.equal(concurrentDuplicateRefused.judge(race(299, 200))[0]?.actual, '2 accepted: 299, 200');
  });

  it('judges nothing of copies that never overlapped at the provider: the first answered before the last left', () => {
    const at = (status: number, sentAt: number, durationMs: number): Exchange => ({
      ...answered(status),
      sentAt,
      durationMs,
    });
    const spaced = [at(200, 0, 50), at(409, 170, 50), at(409, 340, 50)];
    const apart = raceUnjudgeable(spaced, answered(409));
    assert.match(
      apart?.why ?? '',
      /^the copies did not overlap at the provider: the first was answered 290 ms before the last was sent/,
    );
    assert.equal(apart?.exchange, spaced[0]);
    assert.equal(apart?.judgedBy, undefined);
    assert.equal(raceUnjudgeable([at(200, 0, 50), at(200, 1, 50), at(409, 2, 50)], answered(409)), undefined);
    assert.match(concurrentDuplicateRefused.unjudgeable([]) ?? '', /no race to judge/);
  });

  it('tells when the race cannot be judged, and which answer shows why', () => {
    const accepted = race(200, 200, 409);
    assert.equal(raceUnjudgeable(accepted, answered(409)), undefined);
    const afterwards = answered(200);
    assert.deepEqual(raceUnjudgeable(accepted, afterwards), {
      why: 'a copy sent after the race, one after another, was accepted too (200): the provider does not refuse a repeated code at all, which CHECK-CODE-TRUE-REFUSES-DUPLICATE finds',
      exchange: afterwards,
      judgedBy: duplicateRefusedWhenChecked,
    }); // prettier-ignore

    const unclear = race(200, 503, 409);
    assert.deepEqual(raceUnjudgeable(unclear, answered(409)), {
      why: 'one of the withdrawals sent together was answered 503, which may have paid, so how many were accepted is unknown (the ledger marks it unknown)',
      exchange: unclear[1],
      judgedBy: paymentAccepted,
    });
    assert.equal(raceUnjudgeable(race(302, 409), answered(409))?.exchange.response.status, 302);

    const refused = race(403, 401, 401);
    assert.deepEqual(raceUnjudgeable(refused, answered(403)), {
      why: 'none of the withdrawals sent together was accepted (403 for the credentials), so the race shows nothing of duplicates',
      exchange: refused[0],
      judgedBy: paymentAccepted,
    });
    assert.equal(raceUnjudgeable(race(409, 401), answered(409))?.exchange.response.status, 401);
    assert.equal(raceUnjudgeable(race(200, 401, 409), answered(409)), undefined, 'one accepted: judged');
    assert.equal(
      raceUnjudgeable(race(200, 409, 409), answered(200)),
      undefined,
      'one accepted, whatever came after',
    );
    assert.equal(
      raceUnjudgeable(race(409, 409, 400), answered(200)),
      undefined,
      'none accepted, refused as duplicates',
    );
  });
});
