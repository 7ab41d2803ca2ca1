/**
 * Payout gating and the write-ahead ledger, in process (README: "the ledger line is on disk before
 * the request leaves"): refused without the opt-in and on a retry, written before the send, sent
 * once, its outcome written after, and the webhooks of the accepted ones recorded at the end.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../src/config/config.ts';
import { type Exchange, parseJson } from '../src/evidence/exchange.ts';
import { LEDGER_FILE, Ledger, maskPayeeKey } from '../src/run/ledger.ts';
import { type PayoutRequest, Payouts } from '../src/run/payouts.ts';
import type { Target } from '../src/run/target.ts';
import type { WebhookClient } from '../src/webhook/receiver-client.ts';
import { NotSentError, TransportError } from '../src/transport/http.ts';
import { summariseLedger, withdrawalLine } from '../src/report/withdrawals.ts';
import { BoundReached, localBound } from '../src/transport/withdrawal-bound.ts';
import { temporaryDir } from './support/temporary.ts';

const work = temporaryDir('pix-payouts-');
let dirs = 0;

/** A ledger of its own for each test, and what it holds, line by line. */
function freshLedger(): { ledger: Ledger; lines: () => Record<string, unknown>[] } {
  const dir = join(work, String((dirs += 1)));
  const ledger = new Ledger(dir, 'run-7');
  const lines = (): Record<string, unknown>[] =>
    existsSync(ledger.path)
      ? readFileSync(ledger.path, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  return { ledger, lines };
}

const PAYEE_KEY = 'payee-key-0123456789';

function target(missing?: string): Target {
  const config = loadConfig({});
  return {
    config: { ...config, payee: { ...config.payee, key: PAYEE_KEY } },
    baseUrl: 'http://127.0.0.1:1',
    runId: 'run-7',
    webhookControlUrl: 'http://127.0.0.1:1/control',
    webhookControlToken: 'control-token',
    missing: (capability) => (capability === 'payout' ? missing : undefined),
  };
}

const BODY = '{"amount":0.01,"code":"C-1"}';

function request(overrides: Partial<PayoutRequest> = {}): PayoutRequest {
  return {
    checkId: 'PAYMENT-ACCEPTED',
    withdrawal: { code: 'C-1', path: '/hook/c1' },
    url: 'http://127.0.0.1:1/pix/payment',
    body: BODY,
    retry: 0,
    ...overrides,
  };
}

/** A dispatch whose answer asks for no wait (the run's gate is operations.ts's, not tested here). */
const noWait = (): Promise<number | undefined> => Promise.resolve(undefined);

function answer(status: number, body: string): Exchange {
  return {
    operation: 'createWithdraw',
    request: { method: 'POST', url: 'http://127.0.0.1:1/pix/payment', headers: {}, body: BODY },
    response: {
      status,
      headers: { 'content-type': 'application/json' },
      contentType: 'application/json',
      bodyText: body,
      json: parseJson(body),
    },
    durationMs: 1,
  };
}

after(() => rmSync(work, { recursive: true, force: true }));

describe('a withdrawal request, gated and written to the ledger', () => {
  it('is refused without the payout opt-in: nothing sent, nothing written', async () => {
    const { ledger, lines } = freshLedger();
    let sent = 0;
    await assert.rejects(
      new Payouts(target('PIX_ALLOW_PAYOUTS is not 1'), ledger).send(
        request(),
        () => {
          sent += 1;
          return Promise.resolve(answer(200, '{}'));
        },
        noWait,
      ),
      { message: 'Refusing to send POST /pix/payment: PIX_ALLOW_PAYOUTS is not 1.' },
    );
    assert.deepEqual([sent, lines()], [0, []]);
  });

  it('is refused on a retried test: nothing sent, nothing written', async () => {
    const { ledger, lines } = freshLedger();
    let sent = 0;
    await assert.rejects(
      new Payouts(target(), ledger).send(
        request({ retry: 1 }),
        () => {
          sent += 1;
          return Promise.resolve(answer(200, '{}'));
        },
        noWait,
      ),
      /^Error: Refusing to send POST \/pix\/payment again: a test that sends withdrawals is never retried \(drop --retries\)\.$/,
    );
    assert.deepEqual([sent, lines()], [0, []]);
  });

  it("sends none past the plan's bound, 429 resends included, and the ledger and money line say so", async () => {
    const { ledger, lines } = freshLedger();
    ledger.plan({ requests: 1, bound: 2 });
    const payouts = new Payouts(target(), ledger, localBound(2));
    let sent = 0;
    // A 429, sent again after the wait it asks for: the resend takes from the bound too.
    const dispatch = (): Promise<Exchange> => {
      sent += 1;
      return Promise.resolve(answer(sent === 1 ? 429 : 200, '{}'));
    };
    await payouts.send(request(), dispatch, () => Promise.resolve(0));
    await assert.rejects(
      payouts.send(request({ withdrawal: { code: 'C-2', path: '/hook/c2' } }), dispatch, noWait),
      (error) => error instanceof BoundReached && error.limit === 2,
    );
    assert.equal(sent, 2);
    assert.deepEqual(
      lines()
        .filter((line) => line.type === 'outcome')
        .map((line) => line.outcome),
      ['rate-limited', 'accepted', 'not-sent'],
    );
    const summary = summariseLedger(readFileSync(ledger.path, 'utf8'), 'run-7', 'ledger.jsonl');
    assert.ok(summary !== undefined);
    assert.deepEqual(summary.plan, { requests: 1, bound: 2 });
    assert.match(
      withdrawalLine(summary),
      /^Withdrawals: 3 sent \(the plan's 1; at most 2 may leave the suite\):/,
    );
  });

  it('writes the intent before the request leaves, and the outcome after', async () => {
    const { ledger, lines } = freshLedger();
    let atSend: Record<string, unknown>[] = [];
    const exchange = answer(200, '{"id":"prov-1","status":"PROCESSING"}');
    const returned = await new Payouts(target(), ledger).send(
      request(),
      () => {
        atSend = lines();
        return Promise.resolve(exchange);
      },
      noWait,
    );
    assert.equal(returned, exchange);
    const strip = ({ time, ...rest }: Record<string, unknown>): Record<string, unknown> => {
      assert.equal(typeof time, 'string');
      return rest;
    };
    const intent = {
      runId: 'run-7',
      type: 'intent',
      checkId: 'PAYMENT-ACCEPTED',
      code: 'C-1',
      amount: 0.01,
      checkCode: false,
      payeeKey: 'pa***89',
      url: 'http://127.0.0.1:1/pix/payment',
    };
    assert.deepEqual(atSend.map(strip), [intent], 'the intent is on disk when the request is sent');
    assert.deepEqual(lines().map(strip), [
      intent,
      {
        runId: 'run-7',
        type: 'outcome',
        code: 'C-1',
        status: 200,
        outcome: 'accepted',
        providerId: 'prov-1',
      },
    ]);
  });

  it('records a refusal as refused, and the id a provider returned as transaction_id', async () => {
    const { ledger, lines } = freshLedger();
    const payouts = new Payouts(target(), ledger);
    await payouts.send(request(), () => Promise.resolve(answer(400, '{"error":"bad"}')), noWait);
    await payouts.send(
      request({ body: '[1]' }),
      () => Promise.resolve(answer(201, '{"transaction_id":"tx-9"}')),
      noWait,
    );
    await payouts.send(request({ body: undefined }), () => Promise.resolve(answer(200, '{"id":42}')), noWait);
    const outcomes = lines().filter((line) => line.type === 'outcome');
    assert.deepEqual(
      outcomes.map(({ status, outcome, providerId }) => [status, outcome, providerId]),
      [
        [400, 'refused', undefined],
        [201, 'accepted', 'tx-9'],
        [200, 'accepted', undefined],
      ],
    );
    assert.deepEqual(
      lines()
        .filter((line) => line.type === 'intent')
        .map((line) => line.amount),
      [0.01, null, null],
      'the amount sent, or null when the body has none',
    );
  });

  it('records a request that got no answer as outcome unknown, and never sends it again', async () => {
    const { ledger, lines } = freshLedger();
    let sent = 0;
    await assert.rejects(
      new Payouts(target(), ledger).send(
        request(),
        () => {
          sent += 1;
          return Promise.reject(new Error('socket hang up'));
        },
        noWait,
      ),
      {
        message: `socket hang up\nOutcome unknown for withdrawal C-1: it was not resent; see ${ledger.path}.`,
      },
    );
    assert.equal(sent, 1);
    assert.deepEqual(
      lines().map(({ type, status, outcome, note }) => [type, status, outcome, note]),
      [
        ['intent', undefined, undefined, undefined],
        [
          'outcome',
          null,
          'unknown',
          'no complete response: outcome unknown, not resent; check with the provider and the webhooks',
        ],
      ],
    );
  });

  it('records a 5xx as unknown, a 429 as rate-limited and sends it again after the wait, never a 5xx', async () => {
    const { ledger, lines } = freshLedger();
    const payouts = new Payouts(target(), ledger);
    let sent = 0;
    const fiveHundred = await payouts.send(
      request(),
      () => {
        sent += 1;
        return Promise.resolve(answer(504, '{}'));
      },
      () => Promise.resolve(1_000),
    );
    assert.equal(fiveHundred.response.status, 504);
    assert.equal(sent, 1, 'a 5xx is never sent again, whatever the wait');
    const statuses = [429, 429, 200];
    const limited = await payouts.send(
      request(),
      () => Promise.resolve(answer(statuses.shift() ?? 500, '{}')),
      () => Promise.resolve(10),
    );
    assert.equal(limited.response.status, 200);
    assert.deepEqual(limited.rateLimited, [
      { status: 429, waitedMs: 10 },
      { status: 429, waitedMs: 10 },
    ]);
    assert.deepEqual(
      lines().map(({ type, outcome }) => [type, outcome]),
      [
        ['intent', undefined],
        ['outcome', 'unknown'],
        ['intent', undefined],
        ['outcome', 'rate-limited'],
        ['intent', undefined],
        ['outcome', 'rate-limited'],
        ['intent', undefined],
        ['outcome', 'accepted'],
      ],
      'every attempt is its own ledger entry',
    );
  });

  it('stops after five attempts, or as soon as the wait is refused', async () => {
    const { ledger, lines } = freshLedger();
    const payouts = new Payouts(target(), ledger);
    let sent = 0;
    const always429 = (): Promise<Exchange> => {
      sent += 1;
      return Promise.resolve(answer(429, '{}'));
    };
    await payouts.send(request(), always429, () => Promise.resolve(10));
    assert.equal(sent, 5);
    await payouts.send(request(), always429, noWait);
    assert.equal(sent, 6, 'a wait past the caps is not waited, and nothing is sent again');
    assert.equal(lines().filter((l) => l.outcome === 'rate-limited').length, 6);
  });

  it('records a request the HTTP client refused to send as not-sent', async () => {
    const { ledger, lines } = freshLedger();
    const sent = { method: 'POST', url: 'http://127.0.0.1:1/pix/payment', headers: {}, body: BODY } as const;
    await assert.rejects(
      new Payouts(target(), ledger).send(
        request(),
        () => Promise.reject(new NotSentError(sent, 'the HTTP client refused to send it')),
        noWait,
      ),
      /was not sent/,
    );
    assert.deepEqual(
      lines()
        .filter((l) => l.type === 'outcome')
        .map((l) => l.outcome),
      ['not-sent'],
    );
  });

  it('records, at the end, whether the webhook of each withdrawal arrived, a refused one marked so', async () => {
    const { ledger, lines } = freshLedger();
    const payouts = new Payouts(target(), ledger);
    await payouts.send(request(), () => Promise.resolve(answer(200, '{"id":"a"}')), noWait);
    const refused = request({ withdrawal: { ...request().withdrawal, code: 'C-2', path: '/hook/c2' } });
    await payouts.send(refused, () => Promise.resolve(answer(403, '{}')), noWait);
    const third = request({ withdrawal: { ...request().withdrawal, code: 'C-3', path: '/hook/c3' } });
    await payouts.send(third, () => Promise.resolve(answer(200, '{"id":"c"}')), noWait);
    // A duplicate of an accepted code, refused: the webhooks at its address are the accepted one's.
    await payouts.send(third, () => Promise.resolve(answer(400, '{}')), noWait);
    const asked: string[] = [];
    const webhooks = {
      snapshot: (path: string) => {
        asked.push(path);
        return Promise.resolve({ deliveries: path === '/hook/c3' ? [] : [{}, {}], incomplete: [] });
      },
    } as unknown as WebhookClient;
    await payouts.recordWebhooks(webhooks);
    assert.deepEqual(asked, ['/hook/c1', '/hook/c3', '/hook/c2']);
    assert.deepEqual(
      lines()
        .filter((line) => line.type === 'webhook')
        .map(({ code, webhookReceived, deliveries, refused: why }) => [
          code,
          webhookReceived,
          deliveries,
          why,
        ]),
      [
        ['C-1', true, 2, undefined],
        ['C-3', false, 0, undefined],
        ['C-2', true, 2, { checkId: 'PAYMENT-ACCEPTED', status: 403 }],
      ],
    );
  });
});

describe('what really happened to the money: answers that may have paid, reconciled with their webhooks', () => {
  const SENT = { method: 'POST', url: 'http://127.0.0.1:1/pix/payment', headers: {}, body: BODY } as const;
  const withCode = (n: number): PayoutRequest =>
    request({ withdrawal: { code: `C-${n}`, path: `/hook/c${n}` } });

  it('notes what a 429 and a 5xx mean for the money on their outcome lines, and nothing on a clear answer', async () => {
    const { ledger, lines } = freshLedger();
    const payouts = new Payouts(target(), ledger);
    const statuses = [429, 504, 200, 400];
    for (const status of [...statuses])
      await payouts.send(withCode(status), () => Promise.resolve(answer(status, '{}')), noWait);
    assert.deepEqual(
      lines()
        .filter((l) => l.type === 'outcome')
        .map(({ status, outcome, note }) => ({ status, outcome, note })),
      [
        { status: 429, outcome: 'rate-limited', note: 'answered 429: not processed by the provider' },
        {
          status: 504,
          outcome: 'unknown',
          note: 'answered with no clear refusal (5xx or unexpected status): it may have been paid; not resent; check with the provider and the webhooks',
        },
        { status: 200, outcome: 'accepted', note: undefined },
        { status: 400, outcome: 'refused', note: undefined },
      ],
    );
  });

  it("keeps a transport failure the environment's, told with what it means for the money; any other error stays as it was", async () => {
    const { ledger } = freshLedger();
    const payouts = new Payouts(target(), ledger);
    const timedOut = new TransportError(SENT, 'timed out after 10000 ms');
    const rejected = await payouts
      .send(withCode(1), () => Promise.reject(timedOut), noWait)
      .catch((e: unknown) => e);
    assert.equal(rejected, timedOut, 'the same TransportError, which the recorder blames on the environment');
    assert.equal(
      timedOut.message,
      `POST http://127.0.0.1:1/pix/payment got no complete response: timed out after 10000 ms\nOutcome unknown for withdrawal C-1: it was not resent; see ${ledger.path}.`,
    );
    const ours = new Error('socket hang up');
    const other = await payouts
      .send(withCode(2), () => Promise.reject(ours), noWait)
      .catch((e: unknown) => e);
    assert.notEqual(other, ours);
    assert.equal(ours.message, 'socket hang up', "an error that is not the transport's is not rewritten");
  });

  it('waits for the webhooks of every withdrawal that may have paid, records their statuses, and the money line reads them', async () => {
    const { ledger, lines } = freshLedger();
    const config = target().config;
    const payouts = new Payouts(target(), ledger);
    await payouts.send(withCode(1), () => Promise.resolve(answer(504, '{}')), noWait);
    await payouts
      .send(withCode(2), () => Promise.reject(new TransportError(SENT, 'socket hang up')), noWait)
      .catch(() => undefined);
    await payouts.send(withCode(3), () => Promise.resolve(answer(200, '{"id":"p-3"}')), noWait);
    await payouts.send(withCode(4), () => Promise.resolve(answer(400, '{}')), noWait);
    await payouts.send(withCode(5), () => Promise.resolve(answer(502, '{}')), noWait);
    const bodies: Record<string, string[]> = {
      '/hook/c1': ['{"status":"PAID"}'],
      '/hook/c3': ['not json'],
      '/hook/c5': ['{"data":{"situacao":"RECUSADO"}}'],
    };
    const asked: unknown[] = [];
    // Each delivery as the receiver lists it; every attempt's time goes to the ledger for WEBHOOK-RETRY-PACE.
    const attempt = (path: string, seq: number) =>
      ({ seq, path, receivedAt: 1_000 * seq, answeredStatus: 200, outcome: 'matched' }) as const;
    const reportOf = (path: string) =>
      Promise.resolve({
        deliveries: (bodies[path] ?? []).map((body, i) => ({ ...attempt(path, i + 1), body })),
        incomplete:
          path === '/hook/c3' ? [{ ...attempt(path, 2), answeredStatus: 413, outcome: 'too-large' }] : [],
      });
    const webhooks = {
      waitFor: (path: string, wait: unknown) => {
        asked.push(['waitFor', path, wait]);
        return reportOf(path);
      },
      snapshot: (path: string) => {
        asked.push(['snapshot', path]);
        return reportOf(path);
      },
    } as unknown as WebhookClient;
    await payouts.recordWebhooks(webhooks);
    const wait = { timeoutMs: config.webhook.timeoutMs, graceMs: 0 };
    assert.deepEqual(asked, [
      ['waitFor', '/hook/c1', wait],
      ['waitFor', '/hook/c2', wait],
      ['snapshot', '/hook/c3'],
      ['waitFor', '/hook/c5', wait],
      ['snapshot', '/hook/c4'],
    ]);
    assert.deepEqual(
      lines()
        .filter((l) => l.type === 'webhook')
        .map(({ time: _time, runId: _runId, type: _type, ...rest }) => rest),
      [
        {
          code: 'C-1',
          webhookReceived: true,
          deliveries: 1,
          statuses: ['PAID'],
          attempts: [attempt('/hook/c1', 1)],
        },
        { code: 'C-2', webhookReceived: false, deliveries: 0 },
        {
          code: 'C-3',
          webhookReceived: true,
          deliveries: 1,
          attempts: [
            attempt('/hook/c3', 1),
            { ...attempt('/hook/c3', 2), answeredStatus: 413, outcome: 'too-large' },
          ],
        },
        {
          code: 'C-5',
          webhookReceived: true,
          deliveries: 1,
          statuses: ['RECUSADO'],
          attempts: [attempt('/hook/c5', 1)],
        },
        {
          code: 'C-4',
          webhookReceived: false,
          deliveries: 0,
          refused: { checkId: 'PAYMENT-ACCEPTED', status: 400 },
        },
      ],
    );
    const summary = summariseLedger(readFileSync(ledger.path, 'utf8'), 'run-7', 'ledger.jsonl');
    assert.deepEqual(summary?.outcomes, {
      accepted: 1,
      refused: 1,
      'rate-limited': 0,
      unknown: 3,
      'not-sent': 0,
    });
    assert.deepEqual(summary.unknown, [
      { code: 'C-1', webhook: 'paid' },
      { code: 'C-2', webhook: 'none' },
      { code: 'C-5', webhook: 'failed' },
    ]);
    assert.equal(
      withdrawalLine(summary),
      'Withdrawals: 5 sent: 1 accepted, 1 refused; 3 with an UNKNOWN outcome (1 reported paid by their webhook: C-1; 1 reported failed by their webhook: C-5; 1 with no webhook: C-2); check them with the provider. Ledger: ledger.jsonl',
    );
  });

  it('counts a code accepted again with check_code true as a possible second payout, not a duplicate sent without it', () => {
    const lines = [
      { type: 'intent', checkId: 'FIRST-WITHDRAWAL', code: 'F', checkCode: true },
      { type: 'outcome', code: 'F', outcome: 'accepted' },
      { type: 'intent', checkId: 'CHECK-CODE-FALSE-ALLOWS-DUPLICATE', code: 'N', checkCode: false },
      { type: 'outcome', code: 'N', outcome: 'accepted' },
      { type: 'intent', checkId: 'CHECK-CODE-FALSE-ALLOWS-DUPLICATE', code: 'N', checkCode: false },
      { type: 'outcome', code: 'N', outcome: 'accepted' },
      // check_code left out (the default's observation): the same check's id, but no check_code true.
      { type: 'intent', checkId: 'CHECK-CODE-TRUE-REFUSES-DUPLICATE', code: 'D', checkCode: false },
      { type: 'outcome', code: 'D', outcome: 'accepted' },
      { type: 'intent', checkId: 'CHECK-CODE-TRUE-REFUSES-DUPLICATE', code: 'D', checkCode: false },
      { type: 'outcome', code: 'D', outcome: 'accepted' },
      { type: 'intent', checkId: 'CHECK-CODE-TRUE-REFUSES-DUPLICATE', code: 'F', checkCode: true },
      { type: 'outcome', code: 'F', outcome: 'refused' },
      { type: 'intent', checkId: 'CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE', code: 'F', checkCode: true },
      { type: 'outcome', code: 'F', outcome: 'accepted' },
    ]
      .map((line) => JSON.stringify({ runId: 'r1', ...line }))
      .join('\n');
    const summary = summariseLedger(lines, 'r1', 'ledger.jsonl');
    assert.ok(summary);
    assert.deepEqual(summary.paidAgain, ['F']);
    assert.match(
      withdrawalLine(summary),
      /; 1 POSSIBLY PAID TWICE \(a code accepted again although check_code was true: F\); check them with the provider\. Ledger/,
    );
    const once = summariseLedger(lines.split('\n').slice(0, 10).join('\n'), 'r1', 'ledger.jsonl');
    assert.equal(once?.paidAgain, undefined);
  });

  it('prints no empty group on the money line: each count names at least one withdrawal', () => {
    const line = withdrawalLine({
      ledger: 'ledger.jsonl',
      sent: 4,
      outcomes: { accepted: 0, refused: 0, 'rate-limited': 0, unknown: 4, 'not-sent': 0 },
      unknown: [
        { code: 'A', webhook: 'other' },
        { code: 'B', webhook: 'none' },
      ],
    });
    assert.equal(
      line,
      'Withdrawals: 4 sent; 4 with an UNKNOWN outcome (1 with a webhook status that says neither: A; 1 with no webhook: B; 2 still in flight when the run stopped); check them with the provider. Ledger: ledger.jsonl',
    );
    assert.doesNotMatch(line, /\b0 |: \)|\(\)/);
  });
});

describe('the ledger', () => {
  it(
    'closes every file it opens: a long run appends thousands of lines',
    { skip: existsSync('/proc/self/fd') ? false : 'counting open files needs /proc/self/fd (Linux)' },
    () => {
      const { ledger } = freshLedger();
      const open = (): number => readdirSync('/proc/self/fd').length;
      ledger.webhook({ code: 'W', webhookReceived: true, deliveries: 1 });
      const before = open();
      for (let i = 0; i < 20; i += 1)
        ledger.webhook({ code: `W-${i}`, webhookReceived: true, deliveries: 1 });
      assert.equal(open(), before);
    },
  );

  it('masks the payee key to its first and last two characters, and a short one whole', () => {
    assert.equal(maskPayeeKey('12345678901'), '12***01');
    assert.equal(maskPayeeKey('1234567'), '12***67');
    assert.equal(maskPayeeKey('123456'), '***');
    assert.equal(maskPayeeKey(''), '***');
  });

  it('appends one JSON line per entry to ledger.jsonl, creating the directory', () => {
    const dir = join(work, 'nested', 'reports');
    const ledger = new Ledger(dir, 'run-9');
    assert.equal(ledger.path, join(dir, LEDGER_FILE));
    ledger.webhook({ code: 'W', webhookReceived: false, deliveries: 0 });
    ledger.outcome({ code: 'W', status: 500, outcome: 'refused', note: 'n' });
    const text = readFileSync(ledger.path, 'utf8');
    assert.ok(text.endsWith('\n'));
    const [first, second, ...rest] = text.split('\n');
    assert.deepEqual(rest, ['']);
    assert.match(
      first ?? '',
      /^\{"time":"\d{4}-\d\d-\d\dT[^"]+Z","runId":"run-9","type":"webhook","code":"W"/,
    );
    assert.match(second ?? '', /"type":"outcome","code":"W","status":500,"outcome":"refused","note":"n"\}$/);
  });
});
