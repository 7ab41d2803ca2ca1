/**
 * The client and handler checks (pix-certify client) on hand-written journals of the simulator's
 * shape: each check PASSES a correct client, finds its fault (at its level), and is SKIPPED naming
 * what would exercise it when nothing did; the certification they make validates against the schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientChecks } from '../src/checks/catalogue.ts';
import type { ClientCheck, ClientRun } from '../src/checks/client-requests.ts';
import {
  awaitedDeliveries,
  type DepartureCode,
  type JournalDelivery,
  type JournalRequest,
} from '../src/evidence/journal.ts';
import { buildClientCertification, evaluate } from '../src/report/client-certification.ts';
import { certificationValidator } from '../src/report/read.ts';
import { renderArtifacts } from '../reporters/certification/artifacts.ts';
import {
  T0,
  at,
  correctRun,
  delivery,
  HOOK,
  journal,
  ok,
  token,
  unauthorized,
  withdraw,
} from './support/client-journal.ts';

const ALL = clientChecks('client');
const byId = (id: string): ClientCheck => {
  const check = ALL.find((c) => c.id === id);
  assert.ok(check, id);
  return check;
};
const verdictOf = (id: string, run: ClientRun): string[] => [
  ...new Set(evaluate(byId(id), run, at(0)).map((e) => e.verdict)),
];

test('a correct client passes every check but those its run did not exercise, which name what would', () => {
  const run = correctRun();
  for (const check of ALL) {
    const verdicts = verdictOf(check.id, run);
    const skipped = [
      'CLIENT-AFTER-401',
      'CLIENT-AFTER-429',
      'CLIENT-UNKNOWN-OUTCOME',
      'CLIENT-PROCESSING-NOT-FINAL',
      'CLIENT-SLOW-ANSWER',
      'HANDLER-BEFORE-ANSWER-2XX',
    ];
    assert.deepEqual(verdicts, [skipped.includes(check.id) ? 'SKIPPED' : 'PASSED'], check.id);
  }
  assert.match(byId('CLIENT-AFTER-429').unjudgeable(run) ?? '', /amount 0\.29 \(rate-limited-429\)/);
});

test('each departure the simulator journaled is the finding of exactly one check, at its level', () => {
  const cases: [code: DepartureCode, check: string, verdict: string][] = [
    ['authorization-not-bearer', 'CLIENT-WITHDRAW-BEARER', 'FAILED'],
    ['field-case', 'CLIENT-BODY-FIELD-NAMES', 'FAILED'],
    ['field-type', 'CLIENT-BODY-TYPES', 'FAILED'],
    ['postback-not-absolute', 'CLIENT-BODY-POSTBACK', 'FAILED'],
    ['client-secret-missing', 'CLIENT-WITHDRAW-CREDENTIALS', 'FAILED'],
    ['accept-missing', 'CLIENT-WITHDRAW-ACCEPT', 'FAILED'],
    ['body-not-json', 'CLIENT-BODY-JSON', 'FAILED'],
    ['field-missing', 'CLIENT-BODY-FIELDS', 'WARNING'],
    ['field-value', 'CLIENT-BODY-VALUES', 'WARNING'],
    ['credentials-over-http', 'CLIENT-HTTPS', 'WARNING'],
    ['path-unknown', 'CLIENT-OPERATIONS', 'FAILED'],
  ];
  for (const [code, id, verdict] of cases) {
    const bad = withdraw(10, 't1');
    const departed = { ...bad, departures: [{ code, name: 'x', clause: '§2.1', level: 'must' as const, message: `${code} (§2.1)` }] };
    const run = journal([token(0, 't1'), departed]);
    const found = ALL.filter((c) => evaluate(c, run, at(0)).some((e) => e.verdict === 'FAILED' || e.verdict === 'WARNING'));
    assert.deepEqual(found.map((c) => c.id), [id], code);
    assert.deepEqual(verdictOf(id, run), [verdict], code);
  }
  const privateKey = { ...token(0, 't1'), departures: [{ code: 'cert-client-private-key' as const, name: 'cert_client', clause: '§4.1', level: 'must' as const, message: 'a private key' }] };
  assert.deepEqual(verdictOf('CLIENT-TOKEN-CERT-CLIENT', journal([privateKey])), ['FAILED']);
}); // prettier-ignore

test('CLIENT-OPERATIONS: a readiness probe (HEAD /, GET /health) at a path the document does not name warns; another method at an operation, or a POST elsewhere, fails', () => {
  const sent = (method: string, path: string, code: DepartureCode): JournalRequest => ({
    ...withdraw(5, 't1'),
    method,
    path,
    operation: path === '/pix/payment' ? 'withdraw' : 'unknown',
    answer: {
      status: code === 'path-unknown' ? 404 : 405,
      retryAfterSeconds: null,
      withdrawalId: null,
      tokenId: null,
    },
    departures: [
      { code, name: code === 'path-unknown' ? 'path' : 'method', clause: '§4', level: 'must', message: code },
    ],
  });
  const cases: [method: string, path: string, code: DepartureCode, verdict: string][] = [
    ['HEAD', '/', 'path-unknown', 'WARNING'],
    ['GET', '/health', 'path-unknown', 'WARNING'],
    ['POST', '/pix/payments', 'path-unknown', 'FAILED'],
    ['GET', '/pix/payment', 'method-not-post', 'FAILED'],
  ];
  for (const [method, path, code, verdict] of cases) {
    const run = journal([sent(method, path, code), token(10, 't1'), withdraw(20, 't1')]);
    assert.deepEqual(verdictOf('CLIENT-OPERATIONS', run), [verdict], `${method} ${path}`);
  }
  const probe = evaluate(
    byId('CLIENT-OPERATIONS'),
    journal([sent('HEAD', '/', 'path-unknown'), token(10, 't1'), withdraw(20, 't1')]),
    at(0),
  )[0];
  assert.equal(probe?.expected, 'no request to a path the document does not name');
  assert.match(byId('CLIENT-OPERATIONS').reason, /readiness probe/);
});

test("a withdrawal body past the simulator's limit (answered 413, only its start read) leaves the body checks unjudged, the run INCOMPLETE, never PASSED; a body read whole that departs still fails", () => {
  const BODY_CHECKS = [
    'CLIENT-BODY-JSON',
    'CLIENT-BODY-FIELD-NAMES',
    'CLIENT-BODY-TYPES',
    'CLIENT-BODY-POSTBACK',
    'CLIENT-BODY-FIELDS',
    'CLIENT-BODY-VALUES',
  ];
  const sent = withdraw(30, 't1', {}, 413);
  const oversize: JournalRequest = {
    ...sent,
    body: {
      bytes: 2_000_200,
      truncated: true,
      json: false,
      text: '{"amount":"0.01","padding":"xxxx…',
      limitBytes: 1_048_576,
    },
  };
  const correct = correctRun();
  const run = journal([...correct.journal.requests, oversize], correct.journal.deliveries);
  for (const id of BODY_CHECKS) {
    assert.deepEqual(verdictOf(id, run), ['SKIPPED'], id);
    assert.match(
      byId(id).unjudgeable(run) ?? '',
      /request #\d+ POST \/pix\/payment .* sent a body of 2000200 bytes, past the simulator's limit of 1048576: it was answered 413 .* The document shows no limit/,
      id,
    );
  }
  assert.deepEqual(
    verdictOf('CLIENT-WITHDRAW-BEARER', run),
    ['PASSED'],
    "its headers are judged as any request's",
  );
  const unjudged = (r: ClientRun) =>
    buildClientCertification({
      run: r,
      checks: ALL,
      subject: 'client',
      baseUrl: 'x',
      startTime: new Date(T0),
      durationMs: 1,
      strict: false,
      requireComplete: true,
      options: {},
      suiteErrors: [],
    }).incomplete.flatMap((i) => i.checks);
  assert.deepEqual(
    unjudged(run)
      .filter((id) => !unjudged(correct).includes(id))
      .sort(),
    [...BODY_CHECKS].sort(),
    'the body checks, unjudged, make the run INCOMPLETE',
  );
  const typed = {
    ...withdraw(40, 't1', { amount: '0.01' }, 400),
    departures: [
      {
        code: 'field-type' as const,
        name: 'amount',
        clause: '§2.1',
        level: 'must' as const,
        message: 'amount is a string (§2.1)',
      },
    ],
  };
  assert.deepEqual(
    verdictOf('CLIENT-BODY-TYPES', journal([...run.journal.requests, typed])),
    ['FAILED'],
    'a departure found in a body read whole stands',
  );
});

test('token use: a token per withdrawal warns; a token older than 7200 s, or than the expires_in it stated, fails; one the provider killed early does not', () => {
  assert.deepEqual(verdictOf('CLIENT-TOKEN-REUSED', journal([token(0, 't1'), withdraw(10, 't1'), token(20, 't2'), withdraw(30, 't2')])), ['WARNING']);
  assert.deepEqual(verdictOf('CLIENT-TOKEN-REUSED', journal([token(0, 't1'), withdraw(10, 't1')])), ['SKIPPED']);
  const limited = withdraw(10, 't1', { amount: 0.29 }, 429, 'lim-1');
  assert.deepEqual(verdictOf('CLIENT-TOKEN-REUSED', journal([token(0, 't1'), limited, { ...limited, seq: 90, at: at(1100) }, token(1200, 't2'), withdraw(1300, 't2')])), ['WARNING'], "a 429's resend with its first try's token is still a token per withdrawal");
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), withdraw(7201_000, 't1')])), ['FAILED']);
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), withdraw(7199_000, 't1')])), ['PASSED']);
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), withdraw(3500, 't1')], [], 3)), ['FAILED']);
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), withdraw(2000, 't1'), token(2100, 't2'), withdraw(3500, 't2')], [], 3)), ['PASSED']);
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), withdraw(10, 't1')], [], 9000)), ['PASSED'], 'a stated life past 7200 s is held to 7200 s');
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), withdraw(7300_000, 't1')], [], 9000)), ['FAILED']);
  const diedEarly = { ...withdraw(1000, 't1', {}, 401), credentials: { token: 'expired' as const, tokenId: 't1' }, departures: [{ code: 'token-expired' as const, name: 'Authorization', clause: '§5.3', level: 'must' as const, message: 'The Bearer token has expired' }] };
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), diedEarly])), ['PASSED'], "a token refused before its stated life is the provider's doing");
}); // prettier-ignore

test('PROCESSING is a step: the same payment under a new code after a PROCESSING webhook and before the final status warns of a double payout', () => {
  const first = withdraw(10, 't1', {}, 200, 'pay-1');
  const id = first.answer.withdrawalId ?? '';
  const processing = delivery('valid', ok, HOOK, { withdrawalId: id, event: 'PROCESSING', sentAt: at(50) });
  const paid = delivery('valid', ok, HOOK, { withdrawalId: id, event: 'PAID', sentAt: at(1050) });
  const hasty = journal([token(0, 't1'), first, withdraw(100, 't1', {}, 200, 'pay-1-again')], [processing, paid]);
  assert.deepEqual(verdictOf('CLIENT-PROCESSING-NOT-FINAL', hasty), ['WARNING']);
  assert.match(evaluate(byId('CLIENT-PROCESSING-NOT-FINAL'), hasty, at(0))[0]?.actual ?? '', /still PROCESSING, 50 ms after its PROCESSING webhook and 950 ms before its final webhook/);
  const batch = journal([token(0, 't1'), first, withdraw(30, 't1', {}, 200, 'batch-2')], [processing, paid]);
  assert.deepEqual(verdictOf('CLIENT-PROCESSING-NOT-FINAL', batch), ['PASSED'], "a second order after the first's PROCESSING answer, before any webhook, is a payment of its own (§2.1: code is the withdrawal)");
  const answerOnly = journal([token(0, 't1'), first, withdraw(100, 't1', {}, 200, 'batch-3')], [paid]);
  assert.deepEqual(verdictOf('CLIENT-PROCESSING-NOT-FINAL', answerOnly), ['SKIPPED'], 'an answer saying PROCESSING alone judges nothing');
  assert.match(byId('CLIENT-PROCESSING-NOT-FINAL').unjudgeable(answerOnly) ?? '', /processing-first/);
  const patient = journal([token(0, 't1'), first, withdraw(1100, 't1', { key_pix: 'x@y.z' }, 200, 'pay-2')], [processing, paid]);
  assert.deepEqual(verdictOf('CLIENT-PROCESSING-NOT-FINAL', patient), ['PASSED']);
  const afterFinal = journal([token(0, 't1'), first, withdraw(1100, 't1', {}, 200, 'pay-1-later')], [processing, paid]);
  assert.deepEqual(verdictOf('CLIENT-PROCESSING-NOT-FINAL', afterFinal), ['PASSED'], 'the same payment after its final status is a payment of its own');
}); // prettier-ignore

test('an answer slower than the client waited: a new code for it warns of a double payout, the same code passes; no slow answer is SKIPPED for the reading only', () => {
  const slow = (code: string): JournalRequest => { const r = withdraw(10, 't1', {}, 200, code); return { ...r, answer: { ...r.answer, delayMs: 3000, clientClosedAfterMs: 1000 } }; };
  const first = slow('pay-1');
  const fresh = journal([token(0, 't1'), first, withdraw(1100, 't1', {}, 200, 'pay-1-retry')], [delivery('valid', ok, HOOK, { withdrawalId: first.answer.withdrawalId ?? '', sentAt: at(5000) })]);
  assert.deepEqual(verdictOf('CLIENT-SLOW-ANSWER', fresh), ['WARNING']);
  assert.match(evaluate(byId('CLIENT-SLOW-ANSWER'), fresh, at(0))[0]?.actual ?? '', /after 1000 ms \(its timeout\), before the answer 200 came at 3002 ms/);
  assert.ok(!verdictOf('CLIENT-PROCESSING-NOT-FINAL', fresh).includes('WARNING'), 'one finding: the client never read that answer');
  const same = journal([token(0, 't1'), slow('pay-2'), withdraw(1100, 't1', {}, 400, 'pay-2')]);
  assert.deepEqual(verdictOf('CLIENT-SLOW-ANSWER', same), ['PASSED']);
  const waited = withdraw(10, 't1', {}, 200, 'pay-4');
  assert.deepEqual(verdictOf('CLIENT-SLOW-ANSWER', journal([token(0, 't1'), { ...waited, answer: { ...waited.answer, delayMs: 3000 } }])), ['PASSED'], 'a slow answer waited for');
  const limited = { ...slow('pay-3'), answer: { ...slow('pay-3').answer, status: 429 } };
  const afterRefusal = journal([token(0, 't1'), limited, withdraw(1100, 't1', {}, 200, 'pay-3-retry')]);
  assert.deepEqual(verdictOf('CLIENT-SLOW-ANSWER', afterRefusal), ['PASSED'], 'a refusal the client never read processed nothing: a new code after it pays once');
  assert.deepEqual(verdictOf('CLIENT-AFTER-429', afterRefusal), ['SKIPPED'], 'nor is a 429 it never read');
  const build = buildClientCertification({ run: journal([token(0, 't1'), withdraw(10, 't1')]), checks: [byId('CLIENT-SLOW-ANSWER')], subject: 'client', baseUrl: 'x', startTime: new Date(T0), durationMs: 1, strict: false, requireComplete: true, options: {}, suiteErrors: [] });
  assert.equal(build.checks[0]?.verdict, 'SKIPPED');
  assert.equal(build.checks[0].notJudged?.cause, 'reading');
  assert.deepEqual(build.incomplete, [], 'a check only some readings exercise leaves a run of another complete');
}); // prettier-ignore

test('a webhook before its answer: refused where the handler takes others is HANDLER-BEFORE-ANSWER-2XX, where it takes none HANDLER-VALID-2XX', () => {
  const base = [token(0, 't1'), withdraw(10, 't1'), withdraw(20, 't1')];
  const first = delivery('valid', { status: 404 }, HOOK, { beforeAnswer: true });
  const refusedEarly = journal(base, [first, delivery('valid', ok)]);
  const found = (run: ClientRun) => clientChecks('handler').filter((c) => evaluate(c, run, at(0)).some((e) => e.verdict === 'WARNING')).map((c) => c.id);
  assert.deepEqual(found(refusedEarly), ['HANDLER-BEFORE-ANSWER-2XX']);
  assert.deepEqual(found(journal(base, [delivery('valid', { status: 404 }, HOOK, { beforeAnswer: true }), delivery('valid', { status: 404 })])), ['HANDLER-VALID-2XX']);
  assert.deepEqual(verdictOf('HANDLER-BEFORE-ANSWER-2XX', journal(base, [delivery('valid', ok, HOOK, { beforeAnswer: true })])), ['PASSED']);
  assert.deepEqual(verdictOf('HANDLER-VALID-2XX', journal(base, [delivery('valid', ok, HOOK, { beforeAnswer: true })])), ['PASSED'], 'a handler that takes every webhook, early or not');
}); // prettier-ignore

test('after a 401 of the outcome table one renewal; three 401s in a row are a loop; a refusal for a header is not such a 401', () => {
  const once = journal([token(0, 't1'), unauthorized(10, 't1'), token(20, 't2'), withdraw(30, 't2')]);
  assert.deepEqual(verdictOf('CLIENT-AFTER-401', once), ['PASSED']);
  const loop = journal([token(0, 't1'), unauthorized(10, 't1'), token(20, 't2'), unauthorized(30, 't2'), token(40, 't3'), unauthorized(50, 't3')]);
  assert.deepEqual(verdictOf('CLIENT-AFTER-401', loop), ['WARNING']);
  const longer = journal([token(0, 't1'), ...[1, 2, 3, 4, 5].flatMap((n) => [unauthorized(20 * n, `t${n}`), token(20 * n + 10, `t${n + 1}`)])]);
  const [told] = evaluate(byId('CLIENT-AFTER-401'), longer, at(0)).filter((e) => e.verdict === 'WARNING');
  assert.match(told?.actual ?? '', /^5 withdrawals in a row answered 401, from request #\d+ .*T12:00:00.020Z to request #\d+ .*T12:00:00.100Z: a renewal loop$/, 'the whole loop, to its last request');
  const renewals = journal([token(0, 't1'), unauthorized(10, 't1'), token(20, 't2'), token(30, 't3'), withdraw(40, 't3')]);
  assert.deepEqual(verdictOf('CLIENT-AFTER-401', renewals), ['WARNING']);
  const overHttp = (r: JournalRequest): JournalRequest => ({ ...r, departures: [{ code: 'credentials-over-http', name: 'base_url', clause: '§5', level: 'should', message: 'plain http' }] });
  assert.deepEqual(verdictOf('CLIENT-AFTER-401', journal([token(0, 't1'), overHttp(unauthorized(10, 't1')), token(20, 't2'), withdraw(30, 't2')])), ['PASSED']);
  const refused = { ...withdraw(10, 't1', {}, 401), departures: [{ code: 'token-unknown' as const, name: 'Authorization', clause: '§5.2', level: 'must' as const, message: 'unknown token' }] };
  assert.deepEqual(verdictOf('CLIENT-AFTER-401', journal([token(0, 't1'), refused])), ['SKIPPED']);
}); // prettier-ignore

test('after a 429, nothing before Retry-After', () => {
  const early = journal([token(0, 't1'), withdraw(10, 't1', { amount: 0.29 }, 429), withdraw(200, 't1', { amount: 0.29 }, 429)]);
  assert.deepEqual(verdictOf('CLIENT-AFTER-429', early), ['WARNING']);
  const patient = journal([token(0, 't1'), withdraw(10, 't1', { amount: 0.29 }, 429), withdraw(1100, 't1', { amount: 0.29 }, 429)]);
  assert.deepEqual(verdictOf('CLIENT-AFTER-429', patient), ['PASSED']);
}); // prettier-ignore

test('after an unknown outcome, a new code for the same payment warns of a double payout', () => {
  const first = withdraw(10, 't1', { amount: 0.51 }, 500, 'pay-1');
  const fresh = journal([token(0, 't1'), first, withdraw(100, 't1', { amount: 0.51 }, 200, 'pay-1-retry')]);
  assert.deepEqual(verdictOf('CLIENT-UNKNOWN-OUTCOME', fresh), ['WARNING']);
  assert.match(evaluate(byId('CLIENT-UNKNOWN-OUTCOME'), fresh, at(0))[0]?.actual ?? '', /double payout/);
  const same = journal([token(0, 't1'), withdraw(10, 't1', { amount: 0.51 }, null, 'pay-2'), withdraw(100, 't1', { amount: 0.51 }, 400, 'pay-2')]);
  assert.deepEqual(verdictOf('CLIENT-UNKNOWN-OUTCOME', same), ['PASSED']);
  const failed = withdraw(10, 't1', { amount: 0.51 }, 500, 'pay-5');
  const limitedResend = withdraw(100, 't1', { amount: 0.51 }, 429, 'pay-5');
  delete limitedResend.code;
  const throttled = journal([token(0, 't1'), failed, limitedResend, withdraw(1200, 't1', { amount: 0.51 }, 400, 'pay-5')]);
  assert.deepEqual(verdictOf('CLIENT-UNKNOWN-OUTCOME', throttled), ['PASSED'], 'a resend a rate limit refused before reading it (no code journaled) is the same code');
  const unchecked = journal([token(0, 't1'), withdraw(10, 't1', { amount: 0.51 }, 500, 'pay-3'), withdraw(100, 't1', { amount: 0.51, check_code: false }, 200, 'pay-3')]);
  assert.deepEqual(verdictOf('CLIENT-UNKNOWN-OUTCOME', unchecked), ['WARNING']);
}); // prettier-ignore

test('the same payment is told as Pix tells it: a resend under a new code with the name or key spelt otherwise still warns, another payee does not', () => {
  const resent = (first: Record<string, unknown>, again: Record<string, unknown>) =>
    verdictOf(
      'CLIENT-UNKNOWN-OUTCOME',
      journal([
        token(0, 't1'),
        withdraw(10, 't1', { amount: 0.51, ...first }, 500, 'pay-1'),
        withdraw(100, 't1', { amount: 0.51, ...again }, 200, 'pay-1-retry'),
      ]),
    );
  const same: [first: Record<string, unknown>, again: Record<string, unknown>][] = [
    [{ name: 'Maria Field' }, { name: 'MARIA FIELD' }],
    [{ name: 'João  da Conceição' }, { name: ' JOAO DA CONCEICAO ' }],
    [
      { key_type: 'EMAIL', key_pix: 'maria@example.com' },
      { key_type: 'EMAIL', key_pix: 'Maria@Example.COM ' },
    ],
    [
      { key_type: 'EVP', key_pix: '123e4567-e89b-12d3-a456-426614174000' },
      { key_type: 'EVP', key_pix: '123E4567-E89B-12D3-A456-426614174000' },
    ],
    [
      { key_type: 'CPF', key_pix: '52998224725' },
      { key_type: 'CPF', key_pix: '529.982.247-25' },
    ],
    [
      { key_type: 'CNPJ', key_pix: '12ABC34501DE35' },
      { key_type: 'CNPJ', key_pix: '12.abc.345/01de-35' },
    ],
    [
      { key_type: 'PHONE', key_pix: '+5511998765432' },
      { key_type: 'PHONE', key_pix: '+55 (11) 99876-5432' },
    ],
  ];
  for (const [first, again] of same)
    assert.deepEqual(resent(first, again), ['WARNING'], JSON.stringify(again));
  const other: [first: Record<string, unknown>, again: Record<string, unknown>][] = [
    [{ name: 'Maria Field' }, { name: 'Maria Fields' }],
    [{ key_pix: 'maria@example.com' }, { key_pix: 'maria.f@example.com' }],
    [
      { key_type: 'PHONE', key_pix: '+5511998765432' },
      { key_type: 'PHONE', key_pix: '+5511998765433' },
    ],
    [{ amount: 0.51 }, { amount: '0.51' }],
  ];
  for (const [first, again] of other)
    assert.deepEqual(resent(first, again), ['PASSED'], JSON.stringify(again));
});

test('handler: each kind of delivery answered wrong warns under its own check; a crash on a malformed one is one finding', () => {
  const base = [token(0, 't1'), withdraw(10, 't1'), withdraw(20, 't1')];
  assert.deepEqual(verdictOf('HANDLER-VALID-2XX', journal(base, [delivery('valid', { status: 500 })])), ['WARNING']);
  assert.deepEqual(verdictOf('HANDLER-VALID-2XX', journal(base, [delivery('valid', { status: null, error: 'timeout' })])), ['WARNING']);
  assert.deepEqual(verdictOf('HANDLER-DUPLICATE-2XX', journal(base, [delivery('valid', ok), delivery('duplicate', { status: 500 })])), ['WARNING']);
  assert.deepEqual(verdictOf('HANDLER-OUT-OF-ORDER-2XX', journal(base, [delivery('out-of-order', { status: 409 })])), ['WARNING']);
  assert.deepEqual(verdictOf('HANDLER-EXTRA-FIELDS-2XX', journal(base, [delivery('extra-fields', { status: 422 })])), ['WARNING']);
  assert.deepEqual(verdictOf('HANDLER-MALFORMED-4XX', journal(base, [delivery('malformed', { status: 500 })])), ['WARNING']);
  const crashed = journal(base, [delivery('valid', ok), delivery('malformed', { status: null, error: 'reset' }), delivery('valid', { status: null, error: 'refused' })]);
  const found = clientChecks('handler').filter((c) => evaluate(c, crashed, at(0)).some((e) => e.verdict === 'WARNING')).map((c) => c.id);
  assert.deepEqual(found, ['HANDLER-MALFORMED-4XX']);
  const down = journal(base, [delivery('valid', { status: 500 }), delivery('duplicate', { status: 500 }), delivery('malformed', { status: 500 })]);
  const downFound = clientChecks('handler').filter((c) => evaluate(c, down, at(0)).some((e) => e.verdict === 'WARNING')).map((c) => c.id);
  assert.deepEqual(downFound, ['HANDLER-VALID-2XX'], 'a handler that answers everything 500 is one finding');
  assert.match(byId('HANDLER-DUPLICATE-2XX').unjudgeable(down) ?? '', /HANDLER-VALID-2XX/);
  assert.match(byId('HANDLER-DUPLICATE-2XX').unjudgeable(journal(base)) ?? '', /first paid withdrawal/);
  // Extra fields sent after the crash: not judged, and the reason names the crash, not a withdrawal the client already made.
  const after = journal(base, [delivery('valid', ok), delivery('malformed', { status: null, error: 'reset' }), delivery('extra-fields', { status: null, error: 'refused' })]);
  assert.match(byId('HANDLER-EXTRA-FIELDS-2XX').unjudgeable(after) ?? '', /came after a malformed webhook broke the handler.*HANDLER-MALFORMED-4XX/);
}); // prettier-ignore

test('a run with no withdrawal is INCOMPLETE; a FAILED run exits 1; the certification validates against the schema', () => {
  const validate = certificationValidator();
  const build = (run: ClientRun) =>
    buildClientCertification({ run, checks: ALL, subject: 'client', baseUrl: 'http://127.0.0.1:1/ns/x', startTime: new Date(T0), durationMs: 10, strict: false, requireComplete: false, options: {}, suiteErrors: [], command: { line: 'node app.js', exitCode: 3, signal: null, timedOut: false, durationMs: 5, leftovers: [] } });
  const empty = build(journal([]));
  assert.equal(empty.verdict, 'INCOMPLETE');
  assert.equal(empty.exitCode, 0);
  assert.ok(validate(JSON.parse(JSON.stringify(empty))), JSON.stringify(validate.errors));
  const correct = build(correctRun());
  assert.equal(correct.verdict, 'INCOMPLETE');
  assert.deepEqual(correct.incomplete.flatMap((i) => i.checks), ['CLIENT-AFTER-401', 'CLIENT-AFTER-429', 'CLIENT-UNKNOWN-OUTCOME']);
  assert.ok(correct.observations.some((o) => o.topic === 'client.command'), 'the command exit code is shown');
  const bad = withdraw(10, 't1');
  const failed = build(journal([token(0, 't1'), { ...bad, departures: [{ code: 'field-case', name: 'PostBackUrl', clause: '§2.1', level: 'must', message: 'postbackurl' }] }]));
  assert.equal(failed.verdict, 'FAILED');
  assert.equal(failed.exitCode, 1);
  assert.ok(validate(JSON.parse(JSON.stringify(failed))), JSON.stringify(validate.errors));
}); // prettier-ignore

test('a finding that can pay twice or lose a payout fails the gate whatever its level, and every format says so', () => {
  const build = (run: ClientRun) =>
    buildClientCertification({ run, checks: ALL, subject: 'client', baseUrl: 'http://127.0.0.1:1/ns/x', startTime: new Date(T0), durationMs: 10, strict: false, requireComplete: false, options: {}, suiteErrors: [] });
  const money = ALL.filter((c) => c.money !== undefined).map((c) => c.id);
  assert.deepEqual(money, ['CLIENT-UNKNOWN-OUTCOME', 'CLIENT-PROCESSING-NOT-FINAL', 'CLIENT-SLOW-ANSWER', 'HANDLER-VALID-2XX', 'HANDLER-BEFORE-ANSWER-2XX']);
  const twice = build(journal([token(0, 't1'), withdraw(10, 't1', { amount: 0.51 }, 500, 'pay-1'), withdraw(100, 't1', { amount: 0.51 }, 200, 'pay-1-retry')]));
  const check = twice.checks.find((c) => c.id === 'CLIENT-UNKNOWN-OUTCOME') ?? assert.fail('no CLIENT-UNKNOWN-OUTCOME');
  assert.equal(check.verdict, 'WARNING');
  assert.equal(check.money, 'a double payout');
  assert.equal(twice.exitCode, 1, 'a WARNING that can pay twice exits 1 without PIX_STRICT');
  const artifacts = renderArtifacts(twice, { html: 'h', json: 'j', markdown: 'm', junit: 'u' }, { width: 100, colour: false });
  for (const [format, text] of [['html', artifacts.html], ['markdown', artifacts.markdown], ['junit', artifacts.junit], ['console', artifacts.console]] as const) assert.match(text.replace(/\s+/g, ' '), /MONEY AT RISK \(a double payout\)/, format);
  const lost = build(journal([token(0, 't1'), withdraw(10, 't1'), withdraw(20, 't1')], [delivery('valid', { status: 500 })]));
  assert.equal(lost.checks.find((c) => c.id === 'HANDLER-VALID-2XX')?.verdict, 'WARNING');
  assert.equal(lost.exitCode, 1);
  const other = build(journal([token(0, 't1'), withdraw(10, 't1', { amount: 0.29 }, 429), withdraw(200, 't1', { amount: 0.29 }, 429)]));
  assert.equal(other.exitCode, 0, 'a WARNING that risks no money still exits 0');
}); // prettier-ignore

test('INCOMPLETE fails the client gate unless PIX_REQUIRE_COMPLETE=0; a SKIPPED line names the refusal that stopped an amount the client sent', () => {
  const build = (run: ClientRun, requireComplete: boolean) =>
    buildClientCertification({ run, checks: ALL, subject: 'client', baseUrl: 'http://127.0.0.1:1/ns/x', startTime: new Date(T0), durationMs: 10, strict: false, requireComplete, options: {}, suiteErrors: [] });
  assert.equal(build(correctRun(), true).exitCode, 1);
  assert.equal(build(correctRun(), false).exitCode, 0);
  const refused = { ...withdraw(10, 't1', { amount: 0.29, check_code: 'true' }, 400), departures: [{ code: 'field-type' as const, name: 'check_code', clause: '§2.1', level: 'must' as const, message: 'check_code is a string' }] };
  const run = journal([token(0, 't1'), refused]);
  const reason = byId('CLIENT-AFTER-429').unjudgeable(run) ?? '';
  assert.match(reason, /request #\d+ .*sent amount 0\.29.*answered 400 first \(check_code is a string\)/);
  assert.doesNotMatch(reason, /a withdrawal of amount 0\.29/);
}); // prettier-ignore

test('the wait after the command counts the deliveries the journal says are due within its bound', () => {
  const { journal: settled } = journal([token(0, 't1'), { ...withdraw(10, 't1'), outcome: { name: 'paid', amount: 0.01 } }]);
  assert.equal(awaitedDeliveries(settled, 10_000), 0);
  const due = (kind: JournalDelivery['kind'], dueInMs: number) => ({ withdrawalId: 'w', code: 'c', url: HOOK, event: 'PAID' as const, kind, attempt: 1, dueAt: at(dueInMs), dueInMs });
  const pending = { ...settled, due: [due('valid', 0), due('retry', 2_000), due('valid', 30_000)] };
  assert.equal(awaitedDeliveries(pending, 10_000), 2);
  assert.equal(awaitedDeliveries(pending, 1_000), 1);
}); // prettier-ignore
