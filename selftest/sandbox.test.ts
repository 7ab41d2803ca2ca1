/**
 * The sandbox is the provider the self-test certifies against, so it must itself do what it claims:
 * the reference profile's rules, the lenient profile's other readings, and the faults' breaks.
 */
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { SCENARIOS } from '../sandbox/scenarios.ts';
import { type RunningSandbox, scenarioUrl, startSandbox } from '../sandbox/server.ts';
import { WEBHOOK_SIGNING_SECRET } from '../sandbox/webhook.ts';
import { inventWithdrawal } from './support/data.ts';
import { TEST_PAYEE } from './support/live-env.ts';

interface Delivery {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  readonly json: Record<string, unknown> | undefined;
}

type Changes = Readonly<Record<string, string | undefined>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OTHER_CERT = Buffer.from(
  '-----BEGIN PUBLIC KEY-----\nnot the sandbox client\n-----END PUBLIC KEY-----\n',
).toString('base64');

let sandbox: RunningSandbox;
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
const sandboxLog: string[] = [];
/** Paths whose next delivery the receiver answers 503, as the retry probe's receiver does. */
const refuseOnce = new Set<string>();

before(async () => {
  sandbox = await startSandbox({ log: (line) => sandboxLog.push(line) });
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      deliveries.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
      });
      const refused = refuseOnce.delete(request.url ?? '');
      response.writeHead(refused ? 503 : 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

after(async () => {
  await sandbox.close();
  await new Promise<void>((resolve) => {
    receiver.close(() => {
      resolve();
    });
    receiver.closeAllConnections();
  });
});

function baseOf(scenario: string | undefined): string {
  return scenario === undefined ? sandbox.url : scenarioUrl(sandbox, scenario);
}

function withChanges(headers: Readonly<Record<string, string>>, changes: Changes): Record<string, string> {
  const merged: Record<string, string | undefined> = { ...headers, ...changes };
  return Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

async function post(url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const json = contentType.startsWith('application/json')
    ? (JSON.parse(text) as Record<string, unknown>)
    : undefined;
  return { status: response.status, contentType, text, json };
}

function tokenHeaders(changes: Changes = {}): Record<string, string> {
  const { clientId, certClient } = sandbox.credentials;
  return withChanges({ Accept: 'application/json', client_id: clientId, cert_client: certClient }, changes);
}

function requestToken(scenario?: string, changes: Changes = {}): Promise<Answer> {
  return post(`${baseOf(scenario)}/auth/token`, tokenHeaders(changes));
}

async function tokenFor(scenario?: string): Promise<string> {
  const { json } = await requestToken(scenario);
  const token = json?.access_token ?? json?.token;
  assert.equal(typeof token, 'string', 'the sandbox issued no token');
  return token as string;
}

function paymentHeaders(token: string, changes: Changes = {}): Record<string, string> {
  const { clientId, clientSecret } = sandbox.credentials;
  return withChanges(
    {
      client_id: clientId,
      client_secret: clientSecret,
      accept: 'application/json',
      Authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    },
    changes,
  );
}

/** A complete valid withdraw request with a fresh code and webhook path; undefined removes a field. */
function withdrawBody(changes: Readonly<Record<string, unknown>> = {}): {
  body: Record<string, unknown>;
  path: string;
} {
  const { code, path } = inventWithdrawal();
  const body = {
    amount: 0.01,
    code,
    name: TEST_PAYEE.PIX_PAYEE_NAME,
    key_type: TEST_PAYEE.PIX_PAYEE_KEY_TYPE,
    document: TEST_PAYEE.PIX_PAYEE_DOCUMENT,
    key_pix: TEST_PAYEE.PIX_PAYEE_KEY,
    PostBackUrl: `${receiverUrl}${path}`,
    check_code: true,
    ...changes,
  };
  return { body, path };
}

function withdraw(
  scenario: string | undefined,
  headers: Record<string, string>,
  body: unknown,
): Promise<Answer> {
  return post(
    `${baseOf(scenario)}/pix/payment`,
    headers,
    typeof body === 'string' ? body : JSON.stringify(body),
  );
}

/** The deliveries to `path` once `count` arrived, or what arrived by `withinMs` (a bound, never awaited in full when they come). */
async function deliveriesAt(path: string, count = 1, withinMs = 10_000): Promise<Delivery[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const found = deliveries.filter((d) => d.path === path);
    if (found.length >= count || Date.now() >= deadline) return found;
    await sleep(10);
  }
}

/** The first line of the sandbox's log that `matches`, once written (bounded like deliveriesAt). */
async function logLine(matches: (line: string) => boolean, withinMs = 10_000): Promise<string | undefined> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const found = sandboxLog.find(matches);
    if (found !== undefined || Date.now() >= deadline) return found;
    await sleep(10);
  }
}

/**
 * No webhook reached `path`: a fence withdrawal answered after it has had its webhook delivered, and the
 * sandbox sends webhooks in the order it scheduled them, so one for `path` would have come first.
 */
async function assertNoDeliveryAt(path: string): Promise<void> {
  const fence = withdrawBody();
  assert.equal((await withdraw(undefined, paymentHeaders(await tokenFor()), fence.body)).status, 200);
  assert.equal((await deliveriesAt(fence.path)).length, 1, 'the fence webhook arrived');
  assert.deepEqual(
    deliveries.filter((d) => d.path === path),
    [],
  );
}

function isStandardWebhookSignature(delivery: Delivery): boolean {
  const key = Buffer.from(WEBHOOK_SIGNING_SECRET.replace(/^whsec_/, ''), 'base64');
  const signed = `${String(delivery.headers['webhook-id'])}.${String(delivery.headers['webhook-timestamp'])}.${delivery.body}`;
  return (
    delivery.headers['webhook-signature'] ===
    `v1,${createHmac('sha256', key).update(signed).digest('base64')}`
  );
}

function assertJsonError(answer: Answer, status: number): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.contentType, 'application/json');
  assert.equal(typeof answer.json?.error, 'string');
}

describe('sandbox: reference profile', () => {
  it('issues a token to a valid request', async () => {
    const answer = await requestToken();
    assert.equal(answer.status, 200);
    assert.equal(answer.contentType, 'application/json');
    assert.match(String(answer.json?.access_token), /^[0-9a-f]{64}$/);
    assert.equal(answer.json?.token_type, 'Bearer');
    assert.equal(answer.json.expires_in, 7200);
  });

  const tokenRefusals: [string, Changes, number][] = [
    ['without Accept', { Accept: undefined }, 400],
    ['with Accept: text/plain', { Accept: 'text/plain' }, 400],
    ['without client_id', { client_id: undefined }, 403],
    ['with an unknown client_id', { client_id: 'someone-else' }, 403],
    ['without cert_client', { cert_client: undefined }, 403],
    ['with a cert_client that is not base64', { cert_client: 'this is not base64!' }, 400],
    ["with a base64 cert_client that is not the client's", { cert_client: OTHER_CERT }, 403],
  ];
  for (const [what, changes, status] of tokenRefusals) {
    it(`refuses a token request ${what} with ${status}`, async () => {
      assertJsonError(await requestToken(undefined, changes), status);
    });
  }

  it("issues a token to the client's key as the base64 of its DER (§2.2's other reading), not to a private key's", async () => {
    const pem = Buffer.from(sandbox.credentials.certClient, 'base64').toString('latin1');
    const der = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s/g, '');
    assert.equal((await requestToken(undefined, { cert_client: der })).status, 200);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const otherDer = privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64');
    assertJsonError(await requestToken(undefined, { cert_client: otherDer }), 403);
  });

  it('accepts a withdrawal and posts a signed webhook to exactly its PostBackUrl', async () => {
    const { body, path } = withdrawBody();
    const answer = await withdraw(undefined, paymentHeaders(await tokenFor()), body);
    assert.equal(answer.status, 200, answer.text);
    assert.match(String(answer.json?.id), UUID);
    assert.deepEqual({ ...answer.json, id: 'id' }, { id: 'id', code: body.code, status: 'PROCESSING' });

    const [delivery, ...more] = await deliveriesAt(path);
    assert.ok(delivery, 'no webhook arrived');
    assert.equal(more.length, 0);
    assert.equal(delivery.method, 'POST');
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.ok(isStandardWebhookSignature(delivery), 'the webhook signature does not verify');
    const payload = JSON.parse(delivery.body) as Record<string, unknown>;
    assert.match(String(payload.end_to_end_id), /^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    assert.deepEqual(
      { ...payload, end_to_end_id: 'e2e' },
      {
        event: 'withdrawal.paid',
        id: answer.json?.id,
        code: body.code,
        status: 'PAID',
        amount: 0.01,
        end_to_end_id: 'e2e',
      },
    );
  });

  it('accepts three withdrawals with one token', async () => {
    const headers = paymentHeaders(await tokenFor());
    for (let i = 0; i < 3; i++) {
      assert.equal((await withdraw(undefined, headers, withdrawBody().body)).status, 200);
    }
  });

  const paymentRefusals: [string, Changes, Readonly<Record<string, unknown>> | string, number][] = [
    ['without client_id', { client_id: undefined }, {}, 403],
    ['with an unknown client_id', { client_id: 'someone-else' }, {}, 403],
    ['without client_secret', { client_secret: undefined }, {}, 403],
    ['with a wrong client_secret', { client_secret: 'wrong-secret' }, {}, 403],
    ['without Authorization', { Authorization: undefined }, {}, 401],
    ['with a random bearer token', { Authorization: `Bearer ${'ab'.repeat(32)}` }, {}, 401],
    ['without accept', { accept: undefined }, {}, 400],
    ['with a body that is not JSON', {}, 'amount=0.01', 400],
    ['with an empty body', {}, '', 400],
    ['with a JSON array', {}, '[]', 400],
    ['with an amount that is a string', {}, { amount: '0.01' }, 400],
    ['with a check_code that is a string', {}, { check_code: 'true' }, 400],
    ['without code', {}, { code: undefined }, 400],
    ['with an amount of 0', {}, { amount: 0 }, 400],
    ['with an amount with three decimals', {}, { amount: 0.011 }, 400],
    ['with a PostBackUrl that is not a URL', {}, { PostBackUrl: 'not a url' }, 400],
    ['with an unknown key_type', {}, { key_type: 'IBAN' }, 400],
    ['with a 141-character name', {}, { name: 'N'.repeat(141) }, 400],
  ];
  for (const [what, changes, bodyChanges, status] of paymentRefusals) {
    it(`refuses a withdrawal ${what} with ${status}`, async () => {
      const token = await tokenFor();
      const sent = typeof bodyChanges === 'string' ? bodyChanges : withdrawBody(bodyChanges).body;
      assertJsonError(await withdraw(undefined, paymentHeaders(token, changes), sent), status);
    });
  }

  it('refuses the Basic scheme even with the right token', async () => {
    const token = await tokenFor();
    const answer = await withdraw(
      undefined,
      paymentHeaders(token, { Authorization: `Basic ${token}` }),
      withdrawBody().body,
    );
    assertJsonError(answer, 401);
  });

  it('refuses a repeated code with check_code true or omitted (no webhook then), accepts it with check_code false', async () => {
    const headers = paymentHeaders(await tokenFor());
    const first = withdrawBody();
    assert.equal((await withdraw(undefined, headers, first.body)).status, 200);

    const repeatedChecked = withdrawBody({ code: first.body.code, check_code: true });
    const refused = await withdraw(undefined, headers, repeatedChecked.body);
    assertJsonError(refused, 400);
    assert.equal(refused.json?.error, 'code-duplicate');
    assert.equal(
      (
        await withdraw(
          undefined,
          headers,
          withdrawBody({ code: first.body.code, check_code: undefined }).body,
        )
      ).status,
      400,
    );
    assert.equal(
      (await withdraw(undefined, headers, withdrawBody({ code: first.body.code, check_code: false }).body))
        .status,
      200,
    );
    await assertNoDeliveryAt(repeatedChecked.path);
  });

  it('keeps tokens per scenario: /s/reference shares the bare paths, a fault does not', async () => {
    const token = await tokenFor();
    assert.equal((await withdraw('reference', paymentHeaders(token), withdrawBody().body)).status, 200);
    assertJsonError(await withdraw('webhook-none', paymentHeaders(token), withdrawBody().body), 401);
  });

  it('accepts a withdrawal to a host off this machine but sends it no webhook', async () => {
    const { body } = withdrawBody({ PostBackUrl: 'http://example.com/hooks/1' });
    const answer = await withdraw(undefined, paymentHeaders(await tokenFor()), body);
    assert.equal(answer.status, 200);
    assert.ok(await logLine((line) => line.includes(`${String(answer.json?.id)} not sent: example.com`)));
  });

  it('answers an unknown path 404, a GET 405, an unknown scenario 404 and a body over 1 MiB 413, all as JSON', async () => {
    assertJsonError(await post(`${sandbox.url}/pix/payments`, {}), 404);
    const get = await fetch(`${sandbox.url}/auth/token`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('content-type'), 'application/json');
    assertJsonError(await post(`${baseOf('no-such-scenario')}/auth/token`, tokenHeaders()), 404);
    assertJsonError(await withdraw(undefined, paymentHeaders('x'), 'x'.repeat(1024 * 1024 + 1)), 413);
    assert.equal((await requestToken()).status, 200, 'the sandbox stopped answering');
  });
});

describe('sandbox: lenient profile', () => {
  it('issues {token, expiresIn} without Accept', async () => {
    const answer = await requestToken('lenient', { Accept: undefined });
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.json ?? {}).sort(), ['expiresIn', 'token']);
    assert.equal(answer.json?.expiresIn, 7200);
  });

  it('refuses credentials with 401, and a cert_client that is not base64 with 400', async () => {
    assertJsonError(await requestToken('lenient', { client_id: undefined }), 401);
    assertJsonError(await requestToken('lenient', { cert_client: OTHER_CERT }), 401);
    assertJsonError(await requestToken('lenient', { cert_client: 'this is not base64!' }), 400);
    const token = await tokenFor('lenient');
    assertJsonError(
      await withdraw('lenient', paymentHeaders(token, { client_secret: undefined }), withdrawBody().body),
      401,
    );
  });

  it('accepts amount, key_pix and PostBackUrl alone, and posts its own unsigned webhook', async () => {
    const { body, path } = withdrawBody();
    const minimal = { amount: body.amount, key_pix: body.key_pix, PostBackUrl: body.PostBackUrl };
    const answer = await withdraw(
      'lenient',
      paymentHeaders(await tokenFor('lenient'), { accept: undefined }),
      minimal,
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json?.status, 'pending');
    assert.match(String(answer.json.transaction_id), UUID);

    const [delivery] = await deliveriesAt(path);
    assert.ok(delivery, 'no webhook arrived');
    assert.equal(delivery.headers['webhook-signature'], undefined);
    assert.deepEqual(JSON.parse(delivery.body), {
      type: 'payout.updated',
      data: { transaction_id: answer.json.transaction_id, code: null, status: 'sucesso' },
    });
  });

  it('still checks types, and does not check a repeated code when check_code is omitted', async () => {
    const headers = paymentHeaders(await tokenFor('lenient'));
    assertJsonError(await withdraw('lenient', headers, withdrawBody({ amount: '0.01' }).body), 400);
    const first = withdrawBody({ check_code: undefined });
    assert.equal((await withdraw('lenient', headers, first.body)).status, 200);
    assert.equal(
      (
        await withdraw(
          'lenient',
          headers,
          withdrawBody({ code: first.body.code, check_code: undefined }).body,
        )
      ).status,
      200,
    );
  });
});

describe('sandbox: faults', () => {
  it('token-short-lived: the token response says it expires in 3600 s', async () => {
    const answer = await requestToken('token-short-lived');
    assert.equal(answer.status, 200);
    assert.equal(answer.json?.expires_in, 3600);
  });

  it('webhook-any-case-field: an address under postbackurl gets the webhook; the reference refuses the body', async () => {
    const { body, path } = withdrawBody({ PostBackUrl: undefined });
    const wrongCase = { ...body, postbackurl: `${receiverUrl}${path}` };
    assertJsonError(await withdraw(undefined, paymentHeaders(await tokenFor()), wrongCase), 400);
    await assertNoDeliveryAt(path);
    const scenario = 'webhook-any-case-field';
    assert.equal((await withdraw(scenario, paymentHeaders(await tokenFor(scenario)), wrongCase)).status, 200);
    assert.equal((await deliveriesAt(path)).length, 1);
  });

  it('token-single-use: the second withdrawal with a token is refused', async () => {
    const headers = paymentHeaders(await tokenFor('token-single-use'));
    assert.equal((await withdraw('token-single-use', headers, withdrawBody().body)).status, 200);
    assertJsonError(await withdraw('token-single-use', headers, withdrawBody().body), 401);
  });

  it('payment-any-token: a random bearer token is accepted', async () => {
    const answer = await withdraw('payment-any-token', paymentHeaders('ab'.repeat(32)), withdrawBody().body);
    assert.equal(answer.status, 200);
  });

  it("webhook-wrong-path: the webhook goes to the PostBackUrl's origin + /webhook", async () => {
    const { body, path } = withdrawBody();
    const answer = await withdraw(
      'webhook-wrong-path',
      paymentHeaders(await tokenFor('webhook-wrong-path')),
      body,
    );
    assert.equal(answer.status, 200);
    const atOrigin = await deliveriesAt('/webhook');
    assert.ok(atOrigin.some((d) => d.body.includes(String(answer.json?.id))));
    await assertNoDeliveryAt(path);
  });

  it('body-5xx: a body that is not JSON or has a wrong-typed field gets 500, a missing field still 400', async () => {
    const headers = paymentHeaders(await tokenFor('body-5xx'));
    assertJsonError(await withdraw('body-5xx', headers, 'amount=0.01'), 500);
    assertJsonError(
      await withdraw('body-5xx', headers, withdrawBody({ amount: { wrong_type: true } }).body),
      500,
    );
    assertJsonError(await withdraw('body-5xx', headers, withdrawBody({ name: undefined }).body), 400);
  });

  it('check-code-ignored: a repeated code is accepted with check_code true', async () => {
    const headers = paymentHeaders(await tokenFor('check-code-ignored'));
    const first = withdrawBody();
    assert.equal((await withdraw('check-code-ignored', headers, first.body)).status, 200);
    assert.equal(
      (await withdraw('check-code-ignored', headers, withdrawBody({ code: first.body.code }).body)).status,
      200,
    );
  });

  it('errors-not-json: a refusal comes as text/plain', async () => {
    const answer = await requestToken('errors-not-json', { client_id: undefined });
    assert.equal(answer.status, 403);
    assert.match(answer.contentType, /^text\/plain/);
  });

  it("error-stack-traces: a refusal keeps its JSON error and adds the throw's stack, the server's /srv/ paths in it", async () => {
    const answer = await requestToken('error-stack-traces', { client_id: undefined });
    assertJsonError(answer, 403);
    assert.match(
      String(answer.json?.stack),
      /^Error: .+\n {4}at createWithdraw \(\/srv\/[^)]+\.js:\d+:\d+\)/,
    );
  });

  it('webhook-retry-storm: sends a webhook answered 503 again 20 ms later', async () => {
    const { body, path } = withdrawBody();
    refuseOnce.add(path);
    const answer = await withdraw(
      'webhook-retry-storm',
      paymentHeaders(await tokenFor('webhook-retry-storm')),
      body,
    );
    assert.equal(answer.status, 200);
    assert.equal((await deliveriesAt(path, 2)).length, 2, 'two deliveries');
    assert.ok(sandboxLog.some((line) => line.endsWith(`${path}: sending it again in 20 ms`)));
  });

  it('webhook-duplicate: the webhook arrives twice', async () => {
    const { body, path } = withdrawBody();
    assert.equal(
      (await withdraw('webhook-duplicate', paymentHeaders(await tokenFor('webhook-duplicate')), body)).status,
      200,
    );
    assert.equal((await deliveriesAt(path, 2)).length, 2);
  });

  it('webhook-on-refused: a withdrawal refused for its secret still gets a webhook', async () => {
    const { body, path } = withdrawBody();
    const token = await tokenFor('webhook-on-refused');
    assertJsonError(
      await withdraw('webhook-on-refused', paymentHeaders(token, { client_secret: 'wrong' }), body),
      403,
    );
    assert.equal((await deliveriesAt(path)).length, 1);
  });

  it('retrying: sends a webhook answered 503 again about a second later, and stops once it is answered 200', async () => {
    const { body, path } = withdrawBody();
    refuseOnce.add(path);
    assert.equal((await withdraw('retrying', paymentHeaders(await tokenFor('retrying')), body)).status, 200);
    const [first, second] = await deliveriesAt(path, 2);
    assert.ok(first !== undefined && second !== undefined, 'two deliveries');
    // The sandbox logs the answer before it decides on another attempt: after a 200 there is none.
    assert.ok(await logLine((line) => line.includes(`${path} -> 200 (`)), 'the second delivery was answered');
    assert.equal(deliveries.filter((d) => d.path === path).length, 2, 'no third attempt after a 200');
    assert.ok(sandboxLog.some((line) => line.endsWith(`${path}: sending it again in 1000 ms`)));
  });

  it('the reference never sends a refused webhook again', async () => {
    const { body, path } = withdrawBody();
    refuseOnce.add(path);
    assert.equal((await withdraw(undefined, paymentHeaders(await tokenFor()), body)).status, 200);
    await deliveriesAt(path);
    // Logged before the sandbox decides on another attempt, which it would log as well.
    assert.ok(await logLine((line) => line.includes(`${path} -> 503 (`)), 'the delivery was answered 503');
    assert.ok(!sandboxLog.some((line) => line.includes(`${path}: sending it again`)));
    assert.equal(deliveries.filter((d) => d.path === path).length, 1);
  });

  it('webhook-statuses: posts PROCESSING, then PAID, both before it answers the withdrawal', async () => {
    const { body, path } = withdrawBody();
    const token = await tokenFor('webhook-statuses');
    const answer = await withdraw('webhook-statuses', paymentHeaders(token), body);
    assert.equal(answer.status, 200);
    const arrived = deliveries.filter((d) => d.path === path);
    assert.deepEqual(
      arrived.map((d) => (JSON.parse(d.body) as { status: string }).status),
      ['PROCESSING', 'PAID'],
      'both had arrived when the answer came',
    );
  });

  it('lists the profiles first, then faults with unique names, a clause, a level, and a change from the reference', () => {
    assert.deepEqual(
      SCENARIOS.filter((s) => s.kind === 'profile').map((s) => s.name),
      ['reference', 'lenient', 'retrying'],
    );
    assert.equal(new Set(SCENARIOS.map((s) => s.name)).size, SCENARIOS.length);
    const reference = SCENARIOS[0]?.behaviour;
    for (const scenario of SCENARIOS.filter((s) => s.kind === 'fault')) {
      assert.ok(['FAILED', 'WARNING', 'OBSERVED'].includes(scenario.level), scenario.name);
      assert.match(scenario.clause, /§\d|payloads/, scenario.name);
      // A reading of the reference that only a probe shows (it never sends a refused webhook again) is
      // observed with the probe on; any other fault changes the behaviour.
      const probesTheReference = scenario.level === 'OBSERVED' && Object.keys(scenario.suiteEnv).length > 0;
      if (!probesTheReference)
        assert.notDeepEqual(scenario.behaviour, reference, `${scenario.name} changes nothing`);
    }
  });
});

describe('sandbox: delayMs', () => {
  it('answers every request at least that many ms late, as a far-away environment, and the same answer', async () => {
    const delayed = await startSandbox({ delayMs: 150 });
    try {
      const { clientId, certClient } = delayed.credentials;
      const headers = { Accept: 'application/json', client_id: clientId, cert_client: certClient };
      const started = performance.now();
      const [issued, refused] = await Promise.all([
        post(`${delayed.url}/auth/token`, headers),
        post(`${delayed.url}/auth/token`, withChanges(headers, { client_id: undefined })),
      ]);
      const elapsed = performance.now() - started;
      assert.equal(issued.status, 200);
      assert.equal(refused.status, 403);
      // A floor only: a timer never fires early, and a busy machine may answer as late as it likes.
      assert.ok(elapsed >= 149, `answered in ${elapsed.toFixed(0)} ms`);
    } finally {
      await delayed.close();
    }
  });
});
