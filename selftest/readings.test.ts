/**
 * Each reading of the document's silences walked as documented (issue 52, docs/simulator.md
 * "Readings"): a namespace playing it, a token and a withdrawal or the few requests that show it, the
 * answers, the webhooks in their order, and the journal facts a client check reads. The cases run
 * together: slow-answers alone holds its answers 3 s.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { components } from '../sandbox/generated/simulator-control.ts';
import { profileList, readingList } from '../sandbox/profiles.ts';
import {
  control,
  type Namespace,
  sandboxCli,
  send,
  simulatorWithHandler,
  tokenOf,
  withdrawalBody,
  withdrawalHeaders,
} from './support/simulator-client.ts';

type Journal = components['schemas']['Journal'];

const NAMES = [
  'refuses-401',
  'problem-errors',
  'token-field',
  'short-token',
  'slow-answers',
  'webhook-first',
  'processing-first',
  'webhook-retries',
  'rate-limiting',
  'compressed',
];
/** Long enough for any webhook of these cases on a loaded machine; a wait ends as soon as they came. */
const WEBHOOK_WAIT_MS = 15_000;

const { simulator, handler } = simulatorWithHandler();

async function playing(reading: string): Promise<Namespace> {
  const response = await control(simulator(), 'POST', '/_sim/namespaces', {
    name: `r-${reading}`,
    profile: reading,
    faults: 'none',
  });
  assert.equal(response.status, 201);
  const created = (await response.json()) as Namespace & { profile: string };
  assert.equal(created.profile, reading);
  return created;
}

async function journalOf(namespace: Namespace): Promise<Journal> {
  return (await (
    await control(simulator(), 'GET', `/_sim/namespaces/${namespace.name}/journal`)
  ).json()) as Journal;
}

const tokenHeaders = (namespace: Namespace): Record<string, string> => ({
  Accept: 'application/json',
  client_id: namespace.clientId,
  cert_client: namespace.certClient,
});

/** A paid withdrawal (or the amount's outcome) whose webhook goes to the handler at `path`. */
function withdraw(namespace: Namespace, token: string, path: string, amount = 0.01, code?: string) {
  return send(
    `${namespace.baseUrl}/pix/payment`,
    withdrawalHeaders(namespace, token),
    withdrawalBody(amount, `${handler.url}${path}`, code),
  );
}

const statusesAt = (path: string): unknown[] =>
  handler.at(path).map((delivery) => (JSON.parse(delivery.body) as { status?: unknown }).status);

describe('the readings', { concurrency: true }, () => {
  it('are listed with what they change from the namespaces default, why, and their client variables', async () => {
    const readings = readingList();
    assert.deepEqual(
      readings.map((r) => r.name),
      NAMES,
    );
    for (const reading of readings) {
      assert.ok(reading.description.length > 0 && reading.why.length > 0, reading.name);
      assert.ok(Object.keys(reading.differs).length > 0, `${reading.name} differs from the default`);
    }
    assert.deepEqual(readings.find((r) => r.name === 'token-field')?.differs, { tokenReply: 'token' });
    assert.deepEqual(readings.find((r) => r.name === 'token-field')?.clientEnv, { PIX_TOKEN_FIELD: 'token' });
    const names = profileList().map((entry) => entry.name);
    assert.deepEqual(names, [...new Set(names)], 'every name of --profiles means one provider');
    const { stdout, code } = await sandboxCli(['--profiles', '--json']);
    assert.equal(code, 0);
    const listed = (JSON.parse(stdout) as { kind: string; name: string }[]).filter(
      (e) => e.kind === 'reading',
    );
    assert.deepEqual(
      listed,
      readings.map((r) => ({ kind: 'reading', suiteEnv: {}, ...r })),
    );
  });

  it('refuses-401: credentials refused with 401 (a token request, a withdrawal), not 403', async () => {
    const namespace = await playing('refuses-401');
    const wrongId = await send(
      `${namespace.baseUrl}/auth/token`,
      { ...tokenHeaders(namespace), client_id: 'not-the-client' },
      '',
    );
    assert.deepEqual([wrongId.status, wrongId.json?.error], [401, 'client-id-wrong']);
    assert.match(String(wrongId.headers['www-authenticate']), /^Bearer /);
    const noCert = await send(
      `${namespace.baseUrl}/auth/token`,
      { Accept: 'application/json', client_id: namespace.clientId },
      '',
    );
    assert.deepEqual([noCert.status, noCert.json?.error], [401, 'cert-client-missing']);
    const token = await tokenOf(namespace);
    const wrongSecret = await send(
      `${namespace.baseUrl}/pix/payment`,
      { ...withdrawalHeaders(namespace, token), client_secret: 'not-the-secret' },
      withdrawalBody(0.01, `${handler.url}/r/refuses-401`),
    );
    assert.deepEqual([wrongSecret.status, wrongSecret.json?.error], [401, 'client-secret-wrong']);
  });

  it('problem-errors: errors are application/problem+json {type, title, status, detail}; a duplicate says Duplicate', async () => {
    const namespace = await playing('problem-errors');
    const token = await tokenOf(namespace);
    const first = await withdraw(namespace, token, '/r/problem-errors', 0.01, 'problem-errors-code');
    assert.equal(first.status, 200);
    assert.equal(first.headers['content-type'], 'application/json');
    const again = await withdraw(namespace, token, '/r/problem-errors', 0.01, 'problem-errors-code');
    assert.equal(again.status, 400);
    assert.equal(again.headers['content-type'], 'application/problem+json');
    const problem = again.json ?? {};
    assert.deepEqual([typeof problem.type, problem.status, typeof problem.detail], ['string', 400, 'string']);
    assert.match(String(problem.title), /Duplicate/);
    assert.equal(problem.error, undefined);
    const unauthorised = await send(
      `${namespace.baseUrl}/pix/payment`,
      { ...withdrawalHeaders(namespace, token), Authorization: '' },
      withdrawalBody(0.01, `${handler.url}/r/problem-errors`),
    );
    assert.equal(unauthorised.headers['content-type'], 'application/problem+json');
    assert.deepEqual(
      [unauthorised.status, unauthorised.json?.status, unauthorised.json?.title],
      [401, 401, 'Unauthorized'],
    );
  });

  it('token-field: the token answer is {token, expiresIn}, and that token authorises a withdrawal', async () => {
    const namespace = await playing('token-field');
    const answer = await send(`${namespace.baseUrl}/auth/token`, tokenHeaders(namespace), '');
    assert.deepEqual(Object.keys(answer.json ?? {}).sort(), ['expiresIn', 'token']);
    assert.equal(answer.json?.expiresIn, 7200);
    const paid = await withdraw(namespace, String(answer.json.token), '/r/token-field');
    assert.equal(paid.status, 200);
    assert.deepEqual(
      (await journalOf(namespace)).tokens.map((t) => t.expiresInSeconds),
      [7200],
    );
  });

  it('short-token: the token states expires_in 3, is honoured, then refused 401 token-expired', async () => {
    const namespace = await playing('short-token');
    const answer = await send(`${namespace.baseUrl}/auth/token`, tokenHeaders(namespace), '');
    assert.equal(answer.json?.expires_in, 3);
    const token = String(answer.json.access_token);
    assert.equal((await withdraw(namespace, token, '/r/short-token')).status, 200);
    // A body the namespace refuses while the token lives: the refusal turns to 401 once it expired.
    const headers = withdrawalHeaders(namespace, token);
    let refused = await send(`${namespace.baseUrl}/pix/payment`, headers, 'not json');
    for (let tries = 0; refused.status === 400 && tries < 80; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      refused = await send(`${namespace.baseUrl}/pix/payment`, headers, 'not json');
    }
    assert.deepEqual([refused.status, refused.json?.error], [401, 'token-expired']);
    assert.deepEqual(
      (await journalOf(namespace)).tokens.map((t) => t.expiresInSeconds),
      [3],
    );
  });

  it('slow-answers: a withdrawal answered late, processed on arrival; one its client gave up on is paid and its code taken', async () => {
    const namespace = await playing('slow-answers');
    const token = await tokenOf(namespace);
    const abandonedCode = 'slow-abandoned-code';
    const abandon = async () => {
      const given = await send(
        `${namespace.baseUrl}/pix/payment`,
        withdrawalHeaders(namespace, token),
        withdrawalBody(0.01, `${handler.url}/r/slow-abandoned`, abandonedCode),
        1_500,
      );
      // Sent again as soon as the client gave up: the code was taken on arrival.
      return [given, await withdraw(namespace, token, '/r/slow-abandoned', 0.01, abandonedCode)] as const;
    };
    const [answered, [abandoned, resent]] = await Promise.all([
      withdraw(namespace, token, '/r/slow-answered'),
      abandon(),
    ]);
    assert.equal(answered.status, 200);
    assert.equal(abandoned.status, null);
    assert.deepEqual([resent.status, resent.json?.error], [400, 'code-duplicate']);
    const [delivered] = handler.at('/r/slow-answered');
    assert.ok(
      delivered !== undefined && delivered.at < answered.answeredAt,
      'the webhook came before the answer',
    );
    const paid = await handler.awaitDeliveries('/r/slow-abandoned', 1, performance.now() + WEBHOOK_WAIT_MS);
    assert.equal(paid.length, 1, 'the abandoned withdrawal was paid');
    const { requests } = await journalOf(namespace);
    const [tokenRequest, ...withdrawals] = requests;
    assert.equal(tokenRequest?.answer.delayMs, undefined, 'a token request is answered at once');
    assert.deepEqual(
      withdrawals.map((w) => w.answer.delayMs),
      [3000, 3000, 3000],
    );
    const gaveUp = withdrawals.find(
      (w) => w.code === 'slow-abandoned-code' && w.answer.withdrawalId !== null,
    );
    const closedAfter = gaveUp?.answer.clientClosedAfterMs;
    assert.ok(
      closedAfter !== undefined && closedAfter < 3000,
      `closed before the answer: ${String(closedAfter)}`,
    );
    const kept = withdrawals.filter((w) => w !== gaveUp).map((w) => w.answer.clientClosedAfterMs);
    assert.deepEqual(kept, [undefined, undefined]);
  });

  it('webhook-first: the webhook is delivered before the withdrawal is answered', async () => {
    const namespace = await playing('webhook-first');
    const answer = await withdraw(namespace, await tokenOf(namespace), '/r/webhook-first');
    assert.equal(answer.status, 200);
    assert.deepEqual(statusesAt('/r/webhook-first'), ['PAID'], 'delivered when the answer came');
  });

  it('processing-first: answered PROCESSING, then PROCESSING and the final webhook as the outcome table says', async () => {
    const namespace = await playing('processing-first');
    const token = await tokenOf(namespace);
    const [paid, failed] = await Promise.all([
      withdraw(namespace, token, '/r/processing-paid', 0.01),
      withdraw(namespace, token, '/r/processing-failed', 0.11),
    ]);
    assert.deepEqual([paid.status, paid.json?.status, failed.status], [200, 'PROCESSING', 200]);
    const deadline = performance.now() + WEBHOOK_WAIT_MS;
    await handler.awaitDeliveries('/r/processing-paid', 2, deadline);
    await handler.awaitDeliveries('/r/processing-failed', 2, deadline);
    assert.deepEqual(statusesAt('/r/processing-paid'), ['PROCESSING', 'PAID']);
    assert.deepEqual(statusesAt('/r/processing-failed'), ['PROCESSING', 'FAILED']);
    const { requests } = await journalOf(namespace);
    assert.deepEqual(
      requests.filter((r) => r.operation === 'withdraw').map((r) => r.answer.reportedStatus),
      ['PROCESSING', 'PROCESSING'],
    );
  });

  it('webhook-retries: a webhook answered 500 is sent again, 3 attempts in all', async () => {
    const namespace = await playing('webhook-retries');
    handler.refused.add('/r/webhook-retries');
    const answer = await withdraw(namespace, await tokenOf(namespace), '/r/webhook-retries');
    assert.equal(answer.status, 200);
    const delivered = await handler.awaitDeliveries(
      '/r/webhook-retries',
      3,
      performance.now() + WEBHOOK_WAIT_MS,
    );
    assert.equal(delivered.length, 3);
    assert.equal(new Set(delivered.map((d) => d.headers['webhook-id'])).size, 1, 'one message, sent again');
    const journal = await journalOf(namespace);
    assert.deepEqual(
      journal.deliveries.map((d) => [d.attempt, d.of, d.kind, d.answer.status]),
      [
        [1, 3, 'valid', 500],
        [2, 3, 'retry', 500],
        [3, 3, 'retry', 500],
      ],
    );
  });

  it('rate-limiting: past 5 requests a second, 429 with Retry-After: 1, journaled', async () => {
    const namespace = await playing('rate-limiting');
    // One after another until the limit answers: whatever the machine's pace, 6 of them share a second.
    let served = 0;
    let answer = await send(`${namespace.baseUrl}/auth/token`, tokenHeaders(namespace), '');
    for (; answer.status === 200 && served < 100; served++)
      answer = await send(`${namespace.baseUrl}/auth/token`, tokenHeaders(namespace), '');
    assert.deepEqual([answer.status, answer.headers['retry-after']], [429, '1']);
    assert.ok(served >= 5, `${String(served)} served before the first 429`);
    const { requests } = await journalOf(namespace);
    assert.deepEqual(
      requests.filter((r) => r.answer.status === 429).map((r) => r.answer.retryAfterSeconds),
      [1],
    );
  });

  it('compressed: gzip when Accept-Encoding allows it (token, withdrawal, error), plain otherwise, Vary always', async () => {
    const namespace = await playing('compressed');
    const gzip = { 'accept-encoding': 'gzip, deflate' };
    const plain = await send(`${namespace.baseUrl}/auth/token`, tokenHeaders(namespace), '');
    assert.deepEqual([plain.headers['content-encoding'], plain.headers.vary], [undefined, 'Accept-Encoding']);
    assert.equal((JSON.parse(plain.raw.toString()) as { token_type?: unknown }).token_type, 'Bearer');
    const issued = await send(`${namespace.baseUrl}/auth/token`, { ...tokenHeaders(namespace), ...gzip }, '');
    assert.deepEqual([issued.headers['content-encoding'], issued.headers.vary], ['gzip', 'Accept-Encoding']);
    assert.deepEqual([...issued.raw.subarray(0, 2)], [0x1f, 0x8b], 'the body is gzip');
    const token = String(issued.json?.access_token);
    const paid = await send(
      `${namespace.baseUrl}/pix/payment`,
      { ...withdrawalHeaders(namespace, token), ...gzip },
      withdrawalBody(0.01, `${handler.url}/r/compressed`),
    );
    assert.deepEqual(
      [paid.status, paid.headers['content-encoding'], paid.json?.status],
      [200, 'gzip', 'PROCESSING'],
    );
    const refused = await send(
      `${namespace.baseUrl}/pix/payment`,
      { ...withdrawalHeaders(namespace, token), Authorization: '', ...gzip },
      withdrawalBody(0.01, `${handler.url}/r/compressed`),
    );
    assert.deepEqual(
      [refused.status, refused.headers['content-encoding'], refused.json?.error],
      [401, 'gzip', 'authorization-missing'],
    );
    const declined = await send(
      `${namespace.baseUrl}/auth/token`,
      { ...tokenHeaders(namespace), 'accept-encoding': 'gzip;q=0, identity' },
      '',
    );
    assert.equal(declined.headers['content-encoding'], undefined);
  });
});
