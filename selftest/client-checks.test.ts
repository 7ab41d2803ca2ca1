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
  type Journal,
  type JournalDelivery,
  type JournalRequest,
  type OutcomeRow,
} from '../src/evidence/journal.ts';
import { buildClientCertification, evaluate } from '../src/report/client-certification.ts';
import { certificationValidator } from '../src/report/read.ts';
import { renderArtifacts } from '../reporters/certification/artifacts.ts';

const T0 = Date.parse('2026-11-28T12:00:00.000Z');
const at = (ms: number): string => new Date(T0 + ms).toISOString();

const OUTCOMES: OutcomeRow[] = [
  { name: 'paid', amount: 0.01, status: 200, webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'valid' }], meaning: '' },
  { name: 'rate-limited-429', amount: 0.29, status: 429, retryAfterSeconds: 1, webhooks: [], meaning: '' },
  { name: 'error-500-paid', amount: 0.51, status: 500, webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'valid' }], meaning: '' },
  { name: 'webhook-malformed', amount: 0.24, status: 200, webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'malformed' }, { status: 'PAID', afterSeconds: 0.5, kind: 'valid' }], meaning: '' },
]; // prettier-ignore

let seq = 0;
const HOOK = 'http://127.0.0.1:5050/pix';

function request(over: Partial<JournalRequest> & { ms: number }): JournalRequest {
  seq += 1;
  const { ms, ...rest } = over;
  return {
    seq,
    at: at(ms),
    elapsedMs: 2,
    method: 'POST',
    path: '/pix/payment',
    operation: 'withdraw',
    scheme: 'http',
    host: '127.0.0.1:4020',
    remoteLoopback: true,
    headerNames: [],
    headers: {},
    credentials: {},
    body: { bytes: 0, truncated: false, json: false },
    departures: [],
    answer: { status: 200, retryAfterSeconds: null, withdrawalId: `w${seq}`, tokenId: null },
    ...rest,
  };
}

const token = (ms: number, id: string): JournalRequest =>
  request({
    ms,
    path: '/auth/token',
    operation: 'token',
    answer: { status: 200, retryAfterSeconds: null, withdrawalId: null, tokenId: id },
  });

function withdraw(ms: number, tokenId: string, fields: Record<string, unknown> = {}, status: number | null = 200, code = `c${seq + 1}`): JournalRequest {
  const value = { amount: 0.01, code, name: 'Ana', key_type: 'EMAIL', document: '1', key_pix: 'a@b.c', PostBackUrl: HOOK, check_code: true, ...fields };
  return request({ ms, code, credentials: { token: 'valid', tokenId }, body: { bytes: 100, truncated: false, json: true, value }, answer: { status, retryAfterSeconds: status === 429 ? 1 : null, withdrawalId: status === 200 ? `w${seq}` : null, tokenId: null } });
} // prettier-ignore

/** A withdrawal the outcome table answered 401 (unauthorized-401), as a served request is journaled. */
const unauthorized = (ms: number, tokenId: string): JournalRequest => ({
  ...withdraw(ms, tokenId, {}, 401),
  outcome: { name: 'unauthorized-401', amount: 0.01 },
});

let dseq = 0;
function delivery(kind: JournalDelivery['kind'], answer: JournalDelivery['answer'], url = HOOK): JournalDelivery {
  dseq += 1;
  return { seq: dseq, withdrawalId: 'w', code: 'c', url, event: 'PAID', kind, webhookId: `m${dseq}`, attempt: 1, of: 1, sentAt: at(5000 + dseq), durationMs: 3, answer };
} // prettier-ignore

function journal(requests: JournalRequest[], deliveries: JournalDelivery[] = []): ClientRun {
  const tokens = requests.filter((r) => r.answer.tokenId !== null).map((r) => ({ id: r.answer.tokenId ?? '', issuedAt: r.at, requestSeq: r.seq }));
  const j: Journal = { namespace: 'ns-test', limits: { webhookTimeoutMs: 5000, journalMaxEntries: 10000, journalRequestBytes: 16777216, journalDeliveryBytes: 4194304, simulatorJournalBytes: 268435456 }, dropped: { requests: 0, deliveries: 0 }, tokens, requests, deliveries, due: [] };
  return { journal: j, outcomes: OUTCOMES };
} // prettier-ignore

const ok = { status: 200 } as const;

/** A correct client: one token, two withdrawals, every kind of delivery answered as it should be. */
function correctRun(): ClientRun {
  return journal(
    [token(0, 't1'), withdraw(10, 't1'), withdraw(20, 't1', { key_pix: 'b@b.c' })],
    [delivery('valid', ok), delivery('duplicate', ok), delivery('out-of-order', ok), delivery('malformed', { status: 400 }), delivery('valid', ok), delivery('extra-fields', ok)],
  );
} // prettier-ignore

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
    const skipped = ['CLIENT-AFTER-401', 'CLIENT-AFTER-429', 'CLIENT-UNKNOWN-OUTCOME'];
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

test('token use: a token per withdrawal warns; a token older than 7200 s, or one the simulator found expired, fails', () => {
  assert.deepEqual(verdictOf('CLIENT-TOKEN-REUSED', journal([token(0, 't1'), withdraw(10, 't1'), token(20, 't2'), withdraw(30, 't2')])), ['WARNING']);
  assert.deepEqual(verdictOf('CLIENT-TOKEN-REUSED', journal([token(0, 't1'), withdraw(10, 't1')])), ['SKIPPED']);
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), withdraw(7201_000, 't1')])), ['FAILED']);
  const expired = { ...withdraw(10, 't1', {}, 401), credentials: { token: 'expired' as const }, departures: [{ code: 'token-expired' as const, name: 'Authorization', clause: '§5.3', level: 'must' as const, message: 'The Bearer token has expired' }] };
  assert.deepEqual(verdictOf('CLIENT-TOKEN-RENEWED', journal([token(0, 't1'), expired])), ['FAILED']);
}); // prettier-ignore

test('after a 401 of the outcome table one renewal; three 401s in a row are a loop; a refusal for a header is not such a 401', () => {
  const once = journal([token(0, 't1'), unauthorized(10, 't1'), token(20, 't2'), withdraw(30, 't2')]);
  assert.deepEqual(verdictOf('CLIENT-AFTER-401', once), ['PASSED']);
  const loop = journal([token(0, 't1'), unauthorized(10, 't1'), token(20, 't2'), unauthorized(30, 't2'), token(40, 't3'), unauthorized(50, 't3')]);
  assert.deepEqual(verdictOf('CLIENT-AFTER-401', loop), ['WARNING']);
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
  const unchecked = journal([token(0, 't1'), withdraw(10, 't1', { amount: 0.51 }, 500, 'pay-3'), withdraw(100, 't1', { amount: 0.51, check_code: false }, 200, 'pay-3')]);
  assert.deepEqual(verdictOf('CLIENT-UNKNOWN-OUTCOME', unchecked), ['WARNING']);
}); // prettier-ignore

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
  assert.deepEqual(money, ['CLIENT-UNKNOWN-OUTCOME', 'HANDLER-VALID-2XX']);
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
