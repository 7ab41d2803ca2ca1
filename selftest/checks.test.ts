/**
 * The checks as pure functions: each judged against a response that must pass and one that must not,
 * for the rules the sandbox cannot reach (transport) and for the edges of the refusal table.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { defineCheck, judgement, verdictOf, verdictWithin } from '../src/checks/check.ts';
import { applyCredentialCase, credentialCases, forgeToken } from '../src/checks/credentials.ts';
import { REFUSAL_RULES, judgeRefusal, judgeSilentRefusal } from '../src/checks/refusal.ts';
import { jsonPayload, statusDocumented } from '../src/checks/responses.ts';
import { tokenInField } from '../src/checks/token.ts';
import { transportEncrypted } from '../src/checks/connection.ts';
import { returnedIds, webhookIsPost } from '../src/checks/webhook.ts';
import type { Exchange } from '../src/evidence/exchange.ts';
import type { Delivery, Outcome } from '../src/evidence/delivery.ts';
import { retryObservation, webhookObservations } from '../src/webhook/observations.ts';
import type { Verdict } from '../src/checks/vocabulary.ts';
import { curlLine, parseJson } from '../src/evidence/exchange.ts';
import { Inventor } from '../src/spec/invent.ts';
import { isJsonContentType, readPath } from '../src/base/json.ts';
import { redact } from '../src/secrets/redact.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { registerSecret } from '../src/secrets/registry.ts';

function exchange(status: number, body: string, contentType = 'application/json'): Exchange {
  const json = parseJson(body);
  return {
    operation: 'createWithdraw',
    request: { method: 'POST', url: 'http://127.0.0.1:1/pix/payment', headers: {}, body: undefined },
    response: { status, headers: { 'content-type': contentType }, contentType, bodyText: body, json },
    durationMs: 1,
  };
}

describe('refusal table (§5.4, §7)', () => {
  // Written out by hand, not derived from REFUSAL_RULES: a status moved from one band to another in
  // the table must break a cell here. A status a row does not name is FAILED.
  const STATUSES = [200, 201, 204, 302, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503] as const;
  const BANDS: Record<keyof typeof REFUSAL_RULES, Readonly<Partial<Record<number, Verdict>>>> = {
    credentialMissing: { 403: 'PASSED', 400: 'WARNING', 401: 'WARNING' },
    credentialWrong: { 403: 'PASSED', 400: 'WARNING', 401: 'WARNING' },
    credentialMalformed: { 400: 'PASSED', 403: 'PASSED', 401: 'WARNING' },
    bearer: { 401: 'PASSED', 403: 'PASSED', 400: 'WARNING' },
    invalidBody: { 400: 'PASSED', 401: 'WARNING', 403: 'WARNING' },
    invalidKey: { 400: 'PASSED', 403: 'PASSED', 401: 'WARNING' },
  };

  it('has a row here for every rule of the table', () => {
    assert.deepEqual(Object.keys(REFUSAL_RULES).sort(), Object.keys(BANDS).sort());
  });

  for (const [rule, band] of Object.entries(BANDS) as [
    keyof typeof REFUSAL_RULES,
    (typeof BANDS)[keyof typeof BANDS],
  ][])
    for (const status of STATUSES) {
      const verdict = band[status] ?? 'FAILED';
      it(`${REFUSAL_RULES[rule].name}: ${status} is ${verdict}`, () => {
        const violations = judgeRefusal(REFUSAL_RULES[rule], exchange(status, '{}'));
        assert.equal(verdictOf(violations), verdict);
        if (verdict !== 'PASSED')
          assert.deepEqual(
            violations.map((v) => v.verdict),
            [verdict],
            'one finding per refusal, carrying its verdict',
          );
      });
    }

  it('says what it expected, and whether a failed refusal was accepted', () => {
    const [accepted] = judgeRefusal(REFUSAL_RULES.bearer, exchange(201, '{}'));
    assert.equal(
      accepted?.expected,
      'refused with 401 or 403 (bearer token missing, not Bearer, forged or random)',
    );
    assert.match(accepted.actual, /^accepted: 201/);
    const [serverError] = judgeRefusal(REFUSAL_RULES.credentialWrong, exchange(500, '{}'));
    assert.match(serverError?.actual ?? '', /^500/);
    const [listed] = judgeRefusal(REFUSAL_RULES.invalidBody, exchange(403, '{}'));
    assert.match(
      listed?.actual ?? '',
      /^403.* — also a refusal the document lists \(§7\), but not the one it names here$/,
    );
  });

  it('never fails where the document is silent: acceptance or a server error warns, any refusal passes', () => {
    const expected = 'refused (why); the document does not say, so this is only a warning';
    assert.deepEqual(judgeSilentRefusal('why', exchange(200, '{}')), [
      { verdict: 'WARNING', expected, actual: 'accepted: 200 application/json {}' },
    ]);
    assert.deepEqual(judgeSilentRefusal('why', exchange(503, '{}')), [
      { verdict: 'WARNING', expected, actual: 'server error: 503 application/json {}' },
    ]);
    for (const status of [302, 400, 401, 403, 404, 422])
      assert.deepEqual(judgeSilentRefusal('why', exchange(status, '{}')), [], String(status));
  });
});

describe('every response (§7, payloads)', () => {
  const judged = (e: Exchange, alsoAllowed: number[] = []) => ({
    exchange: e,
    documented: [200, 400, 401, 403, 500],
    alsoAllowed,
    validate: undefined,
  });

  it('accepts the statuses of §7 and explicitly tolerated ones only', () => {
    assert.equal(verdictOf(statusDocumented.judge(judged(exchange(403, '{}')))), 'PASSED');
    assert.equal(verdictOf(statusDocumented.judge(judged(exchange(422, '{}')))), 'FAILED');
    assert.equal(verdictOf(statusDocumented.judge(judged(exchange(406, '{}'), [406]))), 'PASSED');
  });

  it('wants a JSON body with a JSON content type, problem+json included', () => {
    assert.ok(isJsonContentType('application/problem+json'));
    assert.ok(isJsonContentType('application/json; charset=utf-8'));
    assert.ok(!isJsonContentType('text/json'));
    assert.equal(verdictOf(jsonPayload.judge(judged(exchange(400, '{"e":1}')))), 'PASSED');
    assert.equal(verdictOf(jsonPayload.judge(judged(exchange(400, 'bad request', 'text/plain')))), 'FAILED');
    assert.equal(verdictOf(jsonPayload.judge(judged(exchange(200, '')))), 'FAILED');
    assert.equal(verdictOf(jsonPayload.judge(judged(exchange(200, '{"a":1}', 'text/html')))), 'FAILED');
  });
});

describe('token (§4.1)', () => {
  it('reads the token at a dotted path and names the string fields when it is elsewhere', () => {
    assert.equal(readPath({ data: { token: 'x' } }, 'data.token'), 'x');
    const violations = tokenInField.judge({
      exchange: exchange(200, '{"jwt":"abc"}'),
      field: 'access_token',
    });
    assert.equal(verdictOf(violations), 'FAILED');
    assert.match(violations[0]?.actual ?? '', /string fields present: jwt/);
    assert.equal(
      verdictOf(
        tokenInField.judge({ exchange: exchange(200, '{"access_token":"abc"}'), field: 'access_token' }),
      ),
      'PASSED',
    );
  });
});

describe('transport', () => {
  it('warns about plain http to another host and passes https or loopback', () => {
    assert.equal(verdictOf(transportEncrypted.judge({ baseUrl: 'http://pix.example.com' })), 'WARNING');
    assert.equal(verdictOf(transportEncrypted.judge({ baseUrl: 'https://pix.example.com' })), 'PASSED');
    assert.equal(verdictOf(transportEncrypted.judge({ baseUrl: 'http://127.0.0.1:4020' })), 'PASSED');
  });
});

describe('webhook (§6)', () => {
  it('finds the ids a withdrawal response returned, nested ones included', () => {
    assert.deepEqual(returnedIds({ id: 'abc123', data: { transaction_id: 'tx-9', status: 'PAID' } }), [
      'abc123',
      'tx-9',
    ]);
  });

  it('says a webhook sent by GET expected POST, and shows the delivery: method, path, type, size, headers', () => {
    const get = {
      seq: 1,
      path: '/hook/4f2a',
      method: 'GET',
      contentType: 'application/json',
      bodyBytes: 45,
      declaredBytes: 45,
      receivedAt: 0,
      answeredStatus: 200,
      outcome: 'matched' as const,
      clientCertificate: null,
      headers: { 'content-type': 'application/json', authorization: '***(40 chars)' },
      body: '{}',
      truncated: false,
    };
    const [violation] = webhookIsPost.judge({
      withdrawal: exchange(200, '{}'),
      code: 'W-1',
      postBackUrl: 'http://127.0.0.1:1/hook/4f2a',
      deliveries: [get],
      incomplete: [],
      strays: { listed: [], total: 0, unlisted: 0 },
      timeoutMs: 100,
    });
    assert.ok(violation !== undefined, 'a GET is a violation');
    assert.equal(violation.expected, 'POST');
    assert.equal(
      violation.actual,
      'GET /hook/4f2a (application/json, 45 bytes, matched); headers content-type: application/json; authorization: ***(40 chars)',
    );
  });
});

describe('webhook observations (§6, not shown)', () => {
  const at = Date.parse('2026-01-02T03:04:05.000Z');
  const request = (seq: number, afterMs: number, outcome: Outcome, status: string): Delivery => ({
    seq,
    path: '/hook/4f2a',
    method: 'POST',
    contentType: 'application/json',
    bodyBytes: 20,
    declaredBytes: 20,
    receivedAt: at + afterMs,
    answeredStatus: outcome === 'declined' ? 503 : 200,
    outcome,
    clientCertificate: null,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status }),
    truncated: false,
  });
  const probe = { waitMs: 5_000, firstWaitMs: 15_000 };

  it('records a retry after the refused delivery: when, and how many attempts within the wait', () => {
    const requests = [request(2, 1_240, 'matched', 'PAID'), request(1, 0, 'declined', 'PAID')];
    const observation = retryObservation({ requests, ...probe });
    assert.deepEqual(observation.value, {
      retried: true,
      attempts: 2,
      afterSeconds: 1.2,
      waitSeconds: 5,
      refusedWith: 503,
    });
    assert.match(observation.note ?? '', /retried after 1.2 s, 2 attempts within 5 s/);
  });

  it('records none within the wait, counting nothing that came after it', () => {
    const requests = [request(1, 0, 'declined', 'PAID'), request(2, 5_001, 'matched', 'PAID')];
    const observation = retryObservation({ requests, ...probe });
    assert.deepEqual(observation.value, { retried: false, attempts: 1, waitSeconds: 5, refusedWith: 503 });
    assert.match(observation.note ?? '', /none within 5 s/);
  });

  it('says nothing was probed when no webhook came to refuse', () => {
    const observation = retryObservation({ requests: [], ...probe });
    assert.deepEqual(observation.value, { refused: false, attempts: 0, waitSeconds: 5 });
    assert.match(observation.note ?? '', /not probed: no webhook arrived within 15 s/);
  });

  it('lists deliveries of one withdrawal with different statuses in order, and not those that agree', () => {
    const topics = (deliveries: Delivery[]): Record<string, unknown> =>
      Object.fromEntries(webhookObservations(deliveries, at).map((o) => [o.topic, o.value]));
    const processing = request(1, 0, 'matched', 'PROCESSING');
    const paid = request(2, 40, 'matched', 'PAID');
    assert.deepEqual(topics([processing, paid])['webhook.statuses'], [
      { statuses: ['PROCESSING'], receivedAt: '2026-01-02T03:04:05.000Z' },
      { statuses: ['PAID'], receivedAt: '2026-01-02T03:04:05.040Z' },
    ]);
    assert.equal(topics([paid, request(3, 90, 'matched', 'PAID')])['webhook.statuses'], undefined);
    assert.equal(topics([paid])['webhook.statuses'], undefined);
  });
});

describe('reproduction', () => {
  it('puts a placeholder for every credential in curl lines and masks registered secrets elsewhere', () => {
    registerSecret('canary-secret-0042');
    registerSecret('canary-token-abcdefgh-1234', 'token');
    const line = curlLine({
      method: 'POST',
      url: 'http://127.0.0.1:1/auth/token',
      headers: {
        client_id: 'visible-id',
        client_secret: 'canary-secret-0042',
        cert_client: 'not-the-configured-one',
        'x-echo': 'canary-secret-0042',
      },
      body: undefined,
    });
    assert.ok(!line.includes('canary-secret-0042'));
    assert.match(line, /client_id: visible-id/);
    assert.match(line, /-H "client_secret: \$PIX_CLIENT_SECRET"/);
    assert.match(line, /-H "cert_client: \$WRONG_CERT_CLIENT"/, 'a wrong value is not your variable');
    assert.match(line, /'x-echo: \*\*\*\(18 chars\)'/);
    assert.match(
      line,
      /^# set \$PIX_CLIENT_SECRET: your client_secret; \$WRONG_CERT_CLIENT: a cert_client that is not yours/m,
    );
    assert.doesNotMatch(line, /moves money/, 'a token request moves none');
  });

  it("writes a header's no-break space or control as the byte the suite sent, in $'…' quoting", () => {
    const line = curlLine({
      method: 'POST',
      url: 'http://127.0.0.1:1/auth/token',
      headers: { client_id: '\u00a0visible-id', 'x-note': "it's\tplain", Accept: 'application/json' },
      body: undefined,
    });
    assert.match(line, / -H \$'client_id: \\xa0visible-id' /);
    assert.match(line, / -H \$'x-note: it\\'s\\x09plain' /);
    assert.match(line, / -H 'Accept: application\/json'/, 'a plain header keeps plain quotes');
    // What bash makes of the quoting is the very bytes that were sent.
    const sent = execFileSync('bash', ['-c', `printf %s ${/\$'client_id: [^']*'/.exec(line)?.[0] ?? ''}`]);
    assert.deepEqual(sent, Buffer.from('client_id: \u00a0visible-id', 'latin1'));
  });

  it('says plainly that a withdrawal moves money, and keeps the scheme of a token', () => {
    const line = curlLine(
      {
        method: 'POST',
        url: 'http://127.0.0.1:1/pix/payment',
        headers: { client_secret: 'canary-secret-0042', Authorization: 'Bearer canary-token-abcdefgh-1234' },
        body: '{"echo":"canary-secret-0042"}',
      },
      'createWithdraw',
    );
    assert.equal(line.split('\n')[0], '# sends a real withdrawal: moves money if the environment accepts it');
    assert.ok(!line.includes('canary-secret-0042') && !line.includes('canary-token-abcdefgh'));
    assert.match(line, /-H "Authorization: Bearer \$ACCESS_TOKEN"/);
    assert.match(line, /\$ACCESS_TOKEN: an access token from POST \/auth\/token/);
    assert.match(
      redact(line),
      /-H "client_secret: \$PIX_CLIENT_SECRET"/,
      'redaction leaves a placeholder alone',
    );
  });
});

describe('invented values (faker, from the run seed)', () => {
  const draw = (seed: number, title: string): string[] => {
    const invent = Inventor.forTest(seed, ['mock', 'a.spec.ts', title]);
    return [invent.next((f) => f.string.uuid()), invent.next((f) => f.string.uuid())];
  };

  it('replays the same values for the same seed and test, and others for another test or seed', () => {
    assert.deepEqual(draw(42, 'a test'), draw(42, 'a test'));
    assert.notDeepEqual(draw(42, 'a test'), draw(42, 'another test'));
    assert.notDeepEqual(draw(42, 'a test'), draw(43, 'a test'));
    const [first, second] = draw(42, 'a test');
    assert.notEqual(first, second);
  });

  it('makes wrong credentials in the shape of the real ones', () => {
    const invent = Inventor.forTest(7, ['credentials']);
    const cases = credentialCases(loadSpec(), 'createWithdraw');
    const wrongSecret = cases.find((c) => c.credential.header === 'client_secret' && c.variant === 'wrong');
    assert.ok(wrongSecret !== undefined);
    const secret = 'sandbox-secret-0123456789abcdef';
    const wrong = String(
      applyCredentialCase({ client_secret: secret }, wrongSecret, undefined, invent).client_secret,
    );
    assert.equal(wrong.length, secret.length);
    assert.notEqual(wrong, secret);
    assert.match(wrong, /^[A-Za-z0-9]{7}-[A-Za-z0-9]{6}-[A-Za-z0-9]{16}$/);

    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.c2lnbmF0dXJlLW9mLXRoZS1yZWFsLXRva2Vu';
    const forged = forgeToken(jwt, invent);
    assert.ok(forged.startsWith('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.'), forged);
    assert.notEqual(forged, jwt);
    assert.equal(forged.length, jwt.length);
  });

  it("makes another client's certificate with the same PEM armour and line lengths", () => {
    const tokenCases = credentialCases(loadSpec(), 'createToken');
    const wrongCert = tokenCases.find((c) => c.credential.header === 'cert_client' && c.variant === 'wrong');
    assert.ok(wrongCert !== undefined);
    const pem = `-----BEGIN PUBLIC KEY-----\n${'A'.repeat(64)}\n${'B'.repeat(20)}==\n-----END PUBLIC KEY-----\n`;
    const real = Buffer.from(pem).toString('base64');
    const other = applyCredentialCase(
      { cert_client: real },
      wrongCert,
      undefined,
      Inventor.forTest(7, ['cert']),
    ).cert_client;
    assert.ok(other !== undefined && other !== real);
    const decoded = Buffer.from(other, 'base64').toString('latin1');
    assert.deepEqual(
      decoded.split('\n').map((line) => line.length),
      pem.split('\n').map((line) => line.length),
    );
    assert.match(
      decoded,
      /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/]{64}\n[A-Za-z0-9+/]{20}==\n-----END PUBLIC KEY-----\n$/,
    );
  });
});

describe('the level belongs to the check', () => {
  it('caps every verdict at its level: only a must check can FAIL', () => {
    assert.equal(verdictWithin('must', 'FAILED'), 'FAILED');
    assert.equal(verdictWithin('should', 'FAILED'), 'WARNING');
    assert.equal(verdictWithin('observe', 'FAILED'), 'WARNING');
    for (const level of ['must', 'should', 'observe'] as const)
      for (const verdict of ['PASSED', 'WARNING', 'SKIPPED'] as const)
        assert.equal(verdictWithin(level, verdict), verdict);
  });

  it('a should check whose judge says FAILED is recorded as WARNING', () => {
    const lax = defineCheck<null>(
      { id: 'X-SHOULD', title: 't', clause: '§1', level: 'should', reason: 'r', remedy: 'm' },
      () => [{ verdict: 'FAILED', expected: 'e', actual: 'a' }],
    );
    assert.equal(verdictWithin(lax.level, verdictOf(lax.judge(null))), 'WARNING');
    assert.deepEqual(judgement(lax, null), {
      violations: [{ verdict: 'WARNING', expected: 'e', actual: 'a' }],
    });
  });

  it('is applied one way on both sides: an input with nothing to judge is never judged', () => {
    const strict = defineCheck<readonly number[]>(
      { id: 'X-MUST', title: 't', clause: '§1', level: 'must', reason: 'r', remedy: 'm' },
      (input) => input.map(() => ({ verdict: 'FAILED' as const, expected: 'e', actual: 'a' })),
      (input) => (input.length === 0 ? 'nothing sent' : undefined),
    );
    assert.deepEqual(judgement(strict, []), { unjudged: 'nothing sent' });
    assert.deepEqual(judgement(strict, [1]), {
      violations: [{ verdict: 'FAILED', expected: 'e', actual: 'a' }],
    });
  });
});
