/**
 * The webhook family's judges (src/checks/webhook.ts), called directly: for each check the deliveries
 * that conform, each that breaks it, and the edges that decide the verdict (a 2xx or not, POST or
 * not, matched or not, a whole value or part of one, an amount within a millionth), with the
 * finding's expected and actual text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RUN_SHAPE } from '../src/checks/family.ts';
import {
  callbackFieldCaseSensitive,
  noWebhookForRefused,
  watchedDeliveries,
  returnedIds,
  differsOnlyInCase,
  webhookDelivered,
  webhookFamily,
  webhookIsJson,
  webhookIsPost,
  webhookMatchesWithdrawal,
  webhookRefersToWithdrawal,
  wrongCaseCallbackBody,
  type WebhookInput,
} from '../src/checks/webhook.ts';
import type { Delivery, DeliveryMeta, StrayReport } from '../src/evidence/delivery.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { answered, delivered } from './support/exchanges.ts';

const NO_STRAYS: StrayReport = { listed: [], total: 0, unlisted: 0 };
const POSTBACK = 'http://127.0.0.1:1/hook/1?run=a';

/** A withdrawal of 10.5 with code W-0001, its answer, and what reached the address. */
function input(deliveries: readonly Delivery[], extra: Partial<WebhookInput> = {}): WebhookInput {
  return {
    withdrawal: answered(200, '{"id":"prov-42","status":"PROCESSING"}', 'application/json', 'createWithdraw', '{"amount":10.5,"code":"W-0001"}'), // prettier-ignore
    code: 'W-0001',
    postBackUrl: POSTBACK,
    deliveries,
    incomplete: [],
    strays: NO_STRAYS,
    timeoutMs: 30_000,
    ...extra,
  };
}

/** What the receiver records of a request that is no delivery: metadata only. */
const meta = (extra: Partial<DeliveryMeta>): DeliveryMeta => delivered('{}', extra);

describe('the webhook family: what each check is', () => {
  it('names its clause, its level and what it needs (§4.2, §6, §2.1)', () => {
    assert.deepEqual(
      webhookFamily.checks(loadSpec()).map(({ id, clause, level, needs }) => ({ id, clause, level, needs })),
      [
        { id: 'WEBHOOK-DELIVERED', clause: '§4.2, §6', level: 'must', needs: ['payout', 'webhook'] },
        { id: 'WEBHOOK-POST', clause: '§6', level: 'must', needs: ['payout', 'webhook'] },
        { id: 'WEBHOOK-JSON', clause: 'payloads, §6', level: 'must', needs: ['payout', 'webhook'] },
        { id: 'WEBHOOK-REFERS-TO-WITHDRAWAL', clause: '§6 (not shown)', level: 'should', needs: ['payout', 'webhook'] },
        { id: 'WEBHOOK-MATCHES-WITHDRAWAL', clause: '§6 (not shown)', level: 'should', needs: ['payout', 'webhook'] },
        { id: 'WEBHOOK-NONE-FOR-REFUSED', clause: '§4.2, §6 (not shown)', level: 'should', needs: ['provider', 'payout', 'webhook'] },
        { id: 'WEBHOOK-CALLBACK-FIELD-CASE-SENSITIVE', clause: '§2.1, §6', level: 'must', needs: ['provider', 'payout', 'webhook'] },
        { id: 'WEBHOOK-RETRY-PACE', clause: '§6 (retries: not shown)', level: 'should', needs: ['payout', 'webhook'] },
      ],
    ); // prettier-ignore
  });

  it('sends three withdrawals, one more when the retry probe is on', () => {
    assert.equal(webhookFamily.withdrawals(loadSpec(), DEFAULT_RUN_SHAPE), 3);
    assert.equal(webhookFamily.withdrawals(loadSpec(), { ...DEFAULT_RUN_SHAPE, webhookRetryProbe: true }), 4);
    assert.equal(webhookFamily.file, 'src/checks/webhook.ts');
    assert.equal(webhookFamily.name, 'webhook');
  });
});

describe('WEBHOOK-DELIVERED: a complete delivery to the PostBackUrl, answered 2xx (§4.2, §6)', () => {
  const expected = `a complete delivery to ${POSTBACK}, answered 2xx`;

  it('passes a matched delivery answered 200 or 299, and one delivery among others', () => {
    assert.deepEqual(webhookDelivered.judge(input([delivered('{}')])), []);
    assert.deepEqual(webhookDelivered.judge(input([delivered('{}', { answeredStatus: 299 })])), []);
    assert.deepEqual(
      webhookDelivered.judge(input([delivered('{}', { answeredStatus: 500 }), delivered('{}', { answeredStatus: 204 })])),
      [],
    ); // prettier-ignore
  });

  it('fails when nothing complete was answered 2xx, saying how long it waited', () => {
    for (const d of [
      delivered('{}', { answeredStatus: 199 }),
      delivered('{}', { answeredStatus: 300 }),
      delivered('{}', { answeredStatus: null }),
      delivered('{}', { outcome: 'stray' }),
      delivered('{}', { outcome: 'declined', answeredStatus: 200 }),
    ])
      assert.deepEqual(
        webhookDelivered.judge(input([d])),
        [{ verdict: 'FAILED', expected, actual: 'no complete delivery within 30000 ms' }],
        `${d.outcome} ${String(d.answeredStatus)}`,
      );
    assert.deepEqual(webhookDelivered.judge(input([])), [
      {
        verdict: 'FAILED',
        expected,
        actual:
          'no complete delivery within 30000 ms (the wait PIX_WEBHOOK_TIMEOUT_MS sets; the document gives no delay, so a provider whose webhooks come later needs a longer wait)',
      },
    ]);
  });

  it('says what arrived instead: attempts at the address, then requests elsewhere', () => {
    const cut = delivered('{}', {
      outcome: 'aborted',
      bodyBytes: 120,
      declaredBytes: 400,
      answeredStatus: null,
    });
    const elsewhere = meta({ path: '/webhook', outcome: 'stray', answeredStatus: 404 });
    assert.deepEqual(
      webhookDelivered.judge(input([], { incomplete: [cut], strays: { listed: [elsewhere], total: 3, unlisted: 1 } })),
      [
        {
          verdict: 'FAILED',
          expected,
          actual:
            'no complete delivery within 30000 ms: a POST to the address was cut after 120 of 400 bytes; posted to another address instead: POST /webhook (application/json, 2 bytes, stray) (and 2 more); 1 request to paths of no run reached the shared receiver meanwhile (not listed: they may be another run\'s)',
        },
      ],
    ); // prettier-ignore
  });

  it('names both URLs when the webhook went to the PostBackUrl in other letter case', () => {
    const mixed = 'http://127.0.0.1:1/Hook/1?Run=a';
    const folded = meta({ path: '/hook/1?Run=a', outcome: 'stray', answeredStatus: 404 });
    const [found] = webhookDelivered.judge(
      input([], { postBackUrl: mixed, strays: { listed: [folded], total: 1, unlisted: 0 } }),
    );
    assert.match(
      found?.actual ?? '',
      /http:\/\/127\.0\.0\.1:1\/hook\/1\?Run=a differs from the PostBackUrl http:\/\/127\.0\.0\.1:1\/Hook\/1\?Run=a only in letter case/,
    );
    // A stray at another path altogether, or at the PostBackUrl exactly, is no case difference.
    assert.equal(differsOnlyInCase('/webhook', mixed), false);
    assert.equal(differsOnlyInCase('/Hook/1?Run=a', mixed), false);
    assert.equal(differsOnlyInCase('/Hook/1?run=a', mixed), true);
    assert.equal(differsOnlyInCase('/prefix/hook/1?Run=a', mixed), true);
  });
});

describe('WEBHOOK-POST: the webhook is sent by POST (§6)', () => {
  it('passes POST deliveries and nothing', () => {
    assert.deepEqual(webhookIsPost.judge(input([delivered('{}'), delivered('[]')])), []);
    assert.deepEqual(webhookIsPost.judge(input([])), []);
  });

  it('fails each delivery by another method, showing method, path, type, size, outcome and headers; warns of a body-less probe beside the POST', () => {
    const put = delivered('{"a":1}', { method: 'PUT', headers: { 'content-type': 'application/json', 'x-signature': '***(9 chars)' } }); // prettier-ignore
    const get = delivered('', { method: 'GET', headers: {}, declaredBytes: null, outcome: 'stray' });
    assert.deepEqual(webhookIsPost.judge(input([delivered('{}'), put, get])), [
      {
        verdict: 'FAILED',
        expected: 'POST',
        actual: 'PUT /hook/1 (application/json, 7 bytes, matched); headers content-type: application/json; x-signature: ***(9 chars)',
      },
      {
        verdict: 'WARNING',
        expected: 'only the webhook, by POST',
        actual: 'GET /hook/1 (no content-type, 0 bytes, stray), besides the webhook by POST: a request the document does not show, which a handler routing by path may answer as a webhook',
      },
    ]); // prettier-ignore
  });

  it('fails a request without a body by another method where no POST came: the webhook was not posted', () => {
    const head = delivered('', { method: 'HEAD', headers: {}, declaredBytes: null });
    assert.deepEqual(webhookIsPost.judge(input([head])), [
      { verdict: 'FAILED', expected: 'POST', actual: 'HEAD /hook/1 (no content-type, 0 bytes, matched)' },
    ]);
  });

  it('says when fewer bytes came than were declared, and only then', () => {
    const short = delivered('{}', { method: 'PATCH', headers: {}, declaredBytes: 10 });
    const exact = delivered('{}', { method: 'PATCH', headers: {}, declaredBytes: 2 });
    const over = delivered('{}', { method: 'PATCH', headers: {}, declaredBytes: 1 });
    assert.deepEqual(
      webhookIsPost.judge(input([short, exact, over])).map((v) => v.actual),
      [
        'PATCH /hook/1 (no content-type, 2 bytes of 10 declared, not awaited for a PATCH, matched)',
        'PATCH /hook/1 (no content-type, 2 bytes, matched)',
        'PATCH /hook/1 (no content-type, 2 bytes, matched)',
      ],
    );
  });
});

describe('WEBHOOK-JSON: the webhook is JSON with a JSON content type (payloads, §6)', () => {
  const expected = 'a JSON body with a JSON content type';

  it('passes a JSON body as application/json or a +json type', () => {
    assert.deepEqual(webhookIsJson.judge(input([delivered('{"status":"PAID"}')])), []);
    const problem = delivered('{"a":1}', {
      headers: { 'content-type': 'application/problem+json; charset=utf-8' },
    });
    assert.deepEqual(webhookIsJson.judge(input([problem])), []);
  });

  it('fails a body that is not JSON, a type that is not JSON, no type, and an empty body', () => {
    const plain = delivered('{"a":1}', { headers: { 'content-type': 'text/plain' } });
    const form = delivered('a=1&b=2');
    const untyped = delivered('{"a":1}', { headers: {} });
    const empty = delivered('');
    assert.deepEqual(webhookIsJson.judge(input([plain, form, untyped, empty])), [
      { verdict: 'FAILED', expected, actual: 'POST /hook/1 (text/plain, 7 bytes, matched); headers content-type: text/plain; body {"a":1}' },
      { verdict: 'FAILED', expected, actual: 'POST /hook/1 (application/json, 7 bytes, matched); headers content-type: application/json; body a=1&b=2' },
      { verdict: 'FAILED', expected, actual: 'POST /hook/1 (no content-type, 7 bytes, matched); body {"a":1}' },
      { verdict: 'FAILED', expected, actual: 'POST /hook/1 (application/json, 0 bytes, matched); headers content-type: application/json; body (empty)' },
    ]); // prettier-ignore
  });

  it("reads the receiver's summary of the whole body, and shows its first 200 characters", () => {
    const cut = delivered(`{"a":"${'x'.repeat(300)}`, { summary: { json: false, values: [], statuses: [] } });
    const [finding] = webhookIsJson.judge(input([cut]));
    assert.equal(finding?.actual, `POST /hook/1 (application/json, 306 bytes, matched); headers content-type: application/json; body {"a":"${'x'.repeat(194)}`); // prettier-ignore
    const whole = delivered('{"a":', { summary: { json: true, values: [], statuses: [] } });
    assert.deepEqual(webhookIsJson.judge(input([whole])), []);
  });

  it('judges only matched POSTs: another method is WEBHOOK-POST’s finding, a declined one no delivery', () => {
    const put = delivered('not json', { method: 'PUT' });
    const declined = delivered('not json', { outcome: 'declined', answeredStatus: 503 });
    assert.deepEqual(webhookIsJson.judge(input([put, declined])), []);
  });
});

describe('the ids a withdrawal response returned', () => {
  it('takes strings and numbers of at least 4 characters under names like ids, at any depth', () => {
    assert.deepEqual(
      returnedIds({
        id: 'abcd',
        withdraw_id: 1234,
        endToEndId: 'E2E-1',
        uuid: 'u-123',
        txid: 'tx-0001',
        E2EID: 'E0001',
        TransactionCode: 'T-99',
        data: { ID: 'deep-1', items: [{ transaction_ref: 'arr-1' }] },
      }),
      ['abcd', '1234', 'E2E-1', 'u-123', 'tx-0001', 'E0001', 'T-99', 'deep-1', 'arr-1'],
    );
  });

  it('leaves out short values, other types, and names that only end like an id', () => {
    assert.deepEqual(returnedIds({ id: 'abc', withdraw_id: 123, txid: true, verified_id: false, transactionOk: true, uuid: null, status: 'PAID', code: 'W-0001' }), []); // prettier-ignore
    assert.deepEqual(
      returnedIds({
        paid: '2026-01-01',
        valid: 'true',
        uuids: 'u-1234',
        xuuid: 'u-5678',
        btxid: 'b-1234',
        txids: 't-1234',
        identity: 'abcd',
        Identifier: 'efgh',
      }),
      [],
    );
    assert.deepEqual(returnedIds(null), []);
    assert.deepEqual(returnedIds('prov-42'), []);
    assert.deepEqual(returnedIds(undefined), []);
    assert.deepEqual(returnedIds([{ id: 'in-array' }, 'loose']), ['in-array']);
  });
});

describe('WEBHOOK-REFERS-TO-WITHDRAWAL: the webhook names its withdrawal (§6, not shown)', () => {
  it('passes a webhook holding the code or a returned id as a whole value', () => {
    assert.deepEqual(webhookRefersToWithdrawal.judge(input([delivered('{"code":"W-0001"}')])), []);
    assert.deepEqual(webhookRefersToWithdrawal.judge(input([delivered('{"ref":{"id":"prov-42"}}')])), []);
  });

  it('warns a webhook that names neither, listing the returned ids, or saying none were', () => {
    assert.deepEqual(webhookRefersToWithdrawal.judge(input([delivered('{"code":"W-0001-b","ref":"prov-4"}')])), [
      { verdict: 'WARNING', expected: "the code 'W-0001' or one of the returned ids (prov-42)", actual: '{"code":"W-0001-b","ref":"prov-4"}' },
    ]); // prettier-ignore
    const noIds = { withdrawal: answered(200, '{"status":"PROCESSING"}') };
    assert.deepEqual(webhookRefersToWithdrawal.judge(input([delivered('{"status":"PROCESSING"}')], noIds)), [
      { verdict: 'WARNING', expected: "the code 'W-0001' or one of the returned ids (none returned)", actual: '{"status":"PROCESSING"}' },
    ]); // prettier-ignore
    const twoIds = { withdrawal: answered(200, '{"id":"prov-42","transaction":"tx-77"}') };
    assert.equal(
      webhookRefersToWithdrawal.judge(input([delivered('{}')], twoIds))[0]?.expected,
      "the code 'W-0001' or one of the returned ids (prov-42, tx-77)",
    );
  });

  it('shows the first 300 characters of the body, and judges only matched POSTs', () => {
    const long = `{"note":"${'n'.repeat(400)}"}`;
    assert.deepEqual(
      webhookRefersToWithdrawal.judge(input([delivered(long)])).map((v) => v.actual),
      [long.slice(0, 300)],
    );
    const put = delivered('{}', { method: 'PUT' });
    const declined = delivered('{}', { outcome: 'declined', answeredStatus: 503 });
    assert.deepEqual(webhookRefersToWithdrawal.judge(input([put, declined])), []);
  });
});

describe('WEBHOOK-MATCHES-WITHDRAWAL: a webhook naming the code reports the amount sent (§6, not shown)', () => {
  const other = (amount: number) => ({
    verdict: 'WARNING',
    expected: 'the amount sent, 10.5',
    actual: `a webhook naming W-0001 reports the amount ${amount}`,
  });
  const judge = (...deliveries: Delivery[]) => webhookMatchesWithdrawal.judge(input(deliveries));

  it('passes the amount sent, to within a millionth', () => {
    assert.deepEqual(judge(delivered('{"code":"W-0001","amount":10.5}')), []);
    assert.deepEqual(judge(delivered('{"code":"W-0001","data":{"valor":10.5000009}}')), []);
    assert.deepEqual(judge(delivered('{"code":"W-0001","amount":10.4999991}')), []);
  });

  it('tells a millionth apart: a difference of exactly 0.000001 passes', () => {
    const nothingSent = {
      withdrawal: answered(200, '{}', 'application/json', 'createWithdraw', '{"amount":0}'),
    };
    const exact = [delivered('{"code":"W-0001","amount":0.000001}')];
    assert.deepEqual(webhookMatchesWithdrawal.judge(input(exact, nothingSent)), []);
    const over = [delivered('{"code":"W-0001","amount":0.0000011}')];
    assert.deepEqual(
      webhookMatchesWithdrawal.judge(input(over, nothingSent)).map((v) => v.expected),
      ['the amount sent, 0'],
    );
  });

  it('warns each other amount, above or below, in any amount member', () => {
    assert.deepEqual(judge(delivered('{"code":"W-0001","amount":10.500002}')), [other(10.500002)]);
    assert.deepEqual(judge(delivered('{"code":"W-0001","amount":10.4}')), [other(10.4)]);
    assert.deepEqual(judge(delivered('{"code":"W-0001","amount":10.5,"fee":{"value":0.3}}')), [other(0.3)]);
  });

  it('judges only matched POSTs that name the code as a whole value', () => {
    assert.deepEqual(judge(delivered('{"id":"prov-42","amount":99}')), []);
    assert.deepEqual(judge(delivered('{"code":"W-0001-b","amount":99}')), []);
    assert.deepEqual(judge(delivered('{"code":"W-0001","amount":99}', { method: 'PUT' })), []);
    assert.deepEqual(judge(delivered('{"code":"W-0001","amount":99}', { outcome: 'declined' })), []);
  });

  it('reads the summary, an older one without amounts included', () => {
    assert.deepEqual(judge(delivered('{}', { summary: { json: true, values: ['W-0001'], statuses: [], amounts: [7] } })), [other(7)]); // prettier-ignore
    assert.deepEqual(judge(delivered('{"code":"W-0001","amount":7}', { summary: { json: true, values: ['W-0001'], statuses: [] } })), []); // prettier-ignore
  });

  it('judges nothing when the withdrawal sent no numeric amount', () => {
    const webhook = [delivered('{"code":"W-0001","amount":99}')];
    for (const body of ['{"amount":"10.5","code":"W-0001"}', '{"code":"W-0001"}', 'not json', undefined])
      assert.deepEqual(
        webhookMatchesWithdrawal.judge(input(webhook, { withdrawal: answered(200, '{}', 'application/json', 'createWithdraw', body) })),
        [],
        String(body),
      ); // prettier-ignore
  });
});

describe('WEBHOOK-NONE-FOR-REFUSED: no webhook for a refused withdrawal (§4.2, not shown)', () => {
  it('passes refusals that got nothing, and warns once naming each that got webhooks, the rest counted', () => {
    const refusal = (code: string, deliveries = 0, statuses: string[] = []) => ({ code, checkId: 'PAYMENT-BODY-AMOUNT-ZERO', status: 400, deliveries, statuses });
    assert.deepEqual(noWebhookForRefused.judge({ refusals: [refusal('C-1'), refusal('C-2')] }), []);
    assert.deepEqual(noWebhookForRefused.judge({ refusals: [refusal('C-1'), refusal('C-2', 1, ['REJECTED']), refusal('C-3', 2)] }), [
      {
        verdict: 'WARNING',
        expected: 'no webhook for any of the 3 refused withdrawals that named a PostBackUrl',
        actual: '2 of them got webhooks: C-2 (PAYMENT-BODY-AMOUNT-ZERO, refused 400): a webhook reporting REJECTED; C-3 (PAYMENT-BODY-AMOUNT-ZERO, refused 400): 2 webhooks',
      },
    ]);
    const many = Array.from({ length: 12 }, (_, i) => refusal(`C-${i}`, 1));
    assert.match(noWebhookForRefused.judge({ refusals: many })[0]?.actual ?? '', /^12 of them got webhooks: C-0 .*C-9 [^;]*; and 2 more$/);
    assert.equal(noWebhookForRefused.unjudgeable({ refusals: [] }), 'no withdrawal that named a PostBackUrl was refused');
  }); // prettier-ignore

  it("reads the deliveries' count and statuses from what the receiver recorded", () => {
    const d = delivered('{"status":"REJECTED"}', { outcome: 'stray', headers: {} });
    assert.deepEqual(watchedDeliveries([d, d]), { deliveries: 2, statuses: ['REJECTED', 'REJECTED'] });
    assert.deepEqual(watchedDeliveries([]), { deliveries: 0, statuses: [] });
  });
});

describe('WEBHOOK-CALLBACK-FIELD-CASE-SENSITIVE: an address sent as postbackurl gets nothing (§2.1, §6)', () => {
  it('passes none, and fails each delivery', () => {
    assert.deepEqual(callbackFieldCaseSensitive.judge({ deliveries: [] }), []);
    assert.deepEqual(callbackFieldCaseSensitive.judge({ deliveries: [delivered('{}', { headers: {} })] }), [
      { verdict: 'FAILED', expected: 'no delivery to the address given under postbackurl', actual: 'POST /hook/1 (no content-type, 2 bytes, matched)' },
    ]); // prettier-ignore
  });

  it('titles the check with both spellings of the field', () => {
    assert.equal(
      callbackFieldCaseSensitive.title,
      'Posts no webhook to an address sent as postbackurl: the callback field is PostBackUrl, case-sensitive',
    );
  });

  it('sends the valid body with its address under postbackurl and no PostBackUrl', () => {
    const body = { amount: 1, code: 'W', name: 'N', key_type: 'EVP', document: 'D', key_pix: 'K', PostBackUrl: 'http://h/x', check_code: true }; // prettier-ignore
    assert.deepEqual(JSON.parse(wrongCaseCallbackBody(body)), {
      amount: 1,
      code: 'W',
      name: 'N',
      key_type: 'EVP',
      document: 'D',
      key_pix: 'K',
      check_code: true,
      postbackurl: 'http://h/x',
    });
  });
});
