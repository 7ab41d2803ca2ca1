/**
 * Self-test of the webhook receiver (tests/_support/webhook/, §4.2 and §6): what a provider may send
 * it, well-formed or not, is recorded under the right address, answered, and never stops it; workers
 * reach it through the control API. Everything on 127.0.0.1, every loop bounded.
 */
import assert from 'node:assert/strict';
import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { registerSecret } from '../tests/_support/redact.ts';
import { WebhookClient } from '../tests/_support/webhook/client.ts';
import { startReceiver, type RunningReceiver } from '../tests/_support/webhook/receiver.ts';
import { DeliveryStore, MAX_KEPT_DELIVERIES, type Arrival } from '../tests/_support/webhook/store.ts';

const HOST = '127.0.0.1';
const SOCKET_TIMEOUT_MS = 3_000;

interface Answer {
  readonly status: number;
  readonly body: string;
}

interface Sending {
  readonly method?: string;
  readonly headers?: OutgoingHttpHeaders;
  readonly body?: string | Buffer;
  readonly agent?: Agent;
}

function send(url: string, { method = 'POST', headers = {}, body, agent }: Sending = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, ...(agent === undefined ? {} : { agent }) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.setTimeout(SOCKET_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer from ${url} within ${SOCKET_TIMEOUT_MS} ms`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes raw bytes and resolves with whatever comes back until the server closes. */
function sendRaw(boundUrl: string, bytes: string): Promise<string> {
  const { port } = new URL(boundUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), HOST, () => socket.end(bytes));
    let text = '';
    socket.setTimeout(SOCKET_TIMEOUT_MS, () =>
      socket.destroy(new Error('the server neither answered nor closed')),
    );
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => {
      resolve(text);
    });
    socket.on('error', reject);
  });
}

/** Sends the headers and part of a body, then goes away. */
function abortMidBody(boundUrl: string, path: string): Promise<void> {
  const { port } = new URL(boundUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), HOST, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: ${HOST}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"partial":`,
      );
      socket.destroy();
      resolve();
    });
    socket.on('error', reject);
  });
}

function connectionRefused(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), HOST, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'ECONNREFUSED');
    });
  });
}

async function assertStillUp(receiver: RunningReceiver): Promise<void> {
  const { path, url } = receiver.register();
  assert.equal((await send(url, { body: '{}' })).status, 200, 'the receiver no longer answers');
  assert.equal(receiver.deliveriesFor(path).length, 1);
}

describe('webhook receiver (§4.2, §6)', () => {
  let receiver: RunningReceiver;
  before(async () => {
    receiver = await startReceiver({ host: HOST, port: 0 });
  });
  after(() => receiver.close());

  test('records a JSON POST to a registered address, answers 200 and masks secrets', async () => {
    const canary = `canary-${'x'.repeat(24)}`;
    registerSecret(canary, 'token');
    const { path, url } = receiver.register();
    assert.match(path, /^\/[0-9a-f]{32}$/);
    assert.equal(url, `${receiver.publicBase}${path}`);

    const body = JSON.stringify({ code: 'W-1', status: 'paid', echo: canary });
    const answer = await send(url, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${canary}` },
      body,
    });

    assert.deepEqual([answer.status, JSON.parse(answer.body)], [200, { received: true }]);
    const [delivery, ...others] = receiver.deliveriesFor(path);
    assert.equal(others.length, 0);
    assert.ok(delivery);
    assert.equal(delivery.outcome, 'matched');
    assert.equal(delivery.method, 'POST');
    assert.equal(delivery.path, path);
    assert.equal(delivery.answeredStatus, 200);
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.equal(delivery.bodyBytes, Buffer.byteLength(body));
    assert.equal(delivery.truncated, false);
    assert.ok(delivery.body.includes('"code":"W-1"'));
    assert.ok(!JSON.stringify(delivery).includes(canary), 'the canary secret was stored unmasked');
  });

  test('records a GET to a registered address as matched, with its method', async () => {
    const { path, url } = receiver.register();
    assert.equal((await send(url, { method: 'GET' })).status, 200);
    assert.deepEqual(
      receiver.deliveriesFor(path).map((d) => [d.method, d.outcome, d.bodyBytes]),
      [['GET', 'matched', 0]],
    );
  });

  test('keeps a delivery to an unregistered path as a stray, answered 404, never matched', async () => {
    const { path } = receiver.register();
    const wrongPath = `${path}0`;
    assert.equal((await send(`${receiver.boundUrl}${wrongPath}?code=1`, { body: 'hello' })).status, 404);
    assert.deepEqual(receiver.deliveriesFor(path), []);
    assert.deepEqual(receiver.deliveriesFor(wrongPath), []);
    const stray = receiver.strays().find((d) => d.path === wrongPath);
    assert.deepEqual(
      [stray?.method, stray?.outcome, stray?.bodyBytes, stray?.answeredStatus],
      ['POST', 'stray', 5, 404],
    );
  });

  test('keeps a body that is not JSON as it came', async () => {
    const { path, url } = receiver.register();
    assert.equal(
      (await send(url, { headers: { 'content-type': 'text/plain' }, body: 'status=paid&code=W-2' })).status,
      200,
    );
    assert.deepEqual(
      receiver.deliveriesFor(path).map((d) => [d.outcome, d.body]),
      [['matched', 'status=paid&code=W-2']],
    );
  });

  test('refuses a 2 MiB body with 413, attributes it to its address as too-large, and stays up', async () => {
    const { path, url } = receiver.register();
    const answer = await send(url, {
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(2 * 1024 * 1024, 'a'),
    });
    assert.equal(answer.status, 413);
    const [delivery] = receiver.deliveriesFor(path);
    assert.deepEqual(
      [delivery?.outcome, delivery?.answeredStatus, delivery?.truncated, delivery?.body.length],
      ['too-large', 413, true, 64 * 1024],
    );
    assert.ok((delivery?.bodyBytes ?? 0) > 1024 * 1024);
    assert.ok((delivery?.bodyBytes ?? Infinity) < 2 * 1024 * 1024, 'the whole oversized body was read');
    await assertStillUp(receiver);
  });

  test('records every one of 1,000 concurrent deliveries across 100 addresses', async () => {
    const addresses = Array.from({ length: 100 }, () => receiver.register());
    // Bounded sockets, so that the test itself does not run out of file descriptors.
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 1_000 }, (_, i) => {
          const address = addresses[i % addresses.length];
          assert.ok(address);
          return send(address.url, {
            agent,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ n: i }),
          });
        }),
      );
      assert.ok(answers.every((a) => a.status === 200));
    } finally {
      agent.destroy();
    }
    const counts = addresses.map(
      ({ path }) => receiver.deliveriesFor(path).filter((d) => d.outcome === 'matched').length,
    );
    assert.deepEqual(
      counts,
      Array.from({ length: 100 }, () => 10),
    );
    const numbers = new Set(
      addresses.flatMap(({ path }) =>
        receiver.deliveriesFor(path).map((d) => (JSON.parse(d.body) as { n: number }).n),
      ),
    );
    assert.equal(numbers.size, 1_000);
  });

  test('answers a malformed request line with 400 over a raw socket, and stays up', async () => {
    const straysBefore = receiver.strays().length;
    const answer = await sendRaw(receiver.boundUrl, 'THIS IS NOT HTTP\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.deepEqual(
      receiver
        .strays()
        .slice(straysBefore)
        .map((d) => [d.method, d.answeredStatus]),
      [['?', 400]],
    );
    await assertStillUp(receiver);
  });

  test('records a sender that aborts mid-body as aborted, and stays up', async () => {
    const { path } = receiver.register();
    await abortMidBody(receiver.boundUrl, path);
    const [delivery] = await receiver.waitFor(path, { timeoutMs: 2_000, graceMs: 0 });
    assert.deepEqual([delivery?.outcome, delivery?.answeredStatus], ['aborted', null]);
    await assertStillUp(receiver);
  });

  test('waitFor resolves with [] when nothing arrives within the timeout', async () => {
    const { path } = receiver.register();
    const started = Date.now();
    assert.deepEqual(await receiver.waitFor(path, { timeoutMs: 150, graceMs: 1_000 }), []);
    assert.ok(Date.now() - started >= 140);
  });

  test('waitFor keeps listening for the grace period and catches a duplicate', async () => {
    const { path, url } = receiver.register();
    const waiting = receiver.waitFor(path, { timeoutMs: 2_000, graceMs: 300 });
    await send(url, { body: '{"attempt":1}' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await send(url, { body: '{"attempt":2}' });
    assert.deepEqual(
      (await waiting).map((d) => d.body),
      ['{"attempt":1}', '{"attempt":2}'],
    );
  });

  test('serves workers through the control API, and only under its secret', async () => {
    const client = new WebhookClient(receiver.controlUrl);
    const { path, url } = await client.register();
    assert.equal(url, `${receiver.publicBase}${path}`);

    const waiting = client.waitFor(path, { timeoutMs: 2_000, graceMs: 100 });
    await send(`${receiver.boundUrl}/elsewhere`, { body: '{}' });
    await send(url, { body: '{"status":"paid"}' });
    const report = await waiting;
    assert.deepEqual(
      report.deliveries.map((d) => [d.outcome, d.body]),
      [['matched', '{"status":"paid"}']],
    );
    assert.deepEqual(
      report.strays.map((d) => d.path),
      ['/elsewhere'],
    );
    assert.deepEqual((await client.snapshot(path)).deliveries, report.deliveries);

    const secret = new URL(receiver.controlUrl).pathname;
    const controlBase = new URL(receiver.controlUrl).origin;
    assert.equal((await send(`${controlBase}/wrong-secret/addresses`)).status, 404);
    await assert.rejects(new WebhookClient(`${controlBase}/wrong-secret`).register(), /answered 404/);
    assert.equal(
      (await send(`${receiver.boundUrl}${secret}/addresses`)).status,
      404,
      'the public server must not serve the control API',
    );
  });
});

test('keeps the path of publicUrl in addresses and accepts deliveries with or without it', async () => {
  const receiver = await startReceiver({ host: HOST, port: 0, publicUrl: 'https://hooks.example.test/pix/' });
  try {
    const { path, url } = receiver.register();
    assert.equal(url, `https://hooks.example.test/pix${path}`);
    assert.equal((await send(`${receiver.boundUrl}/pix${path}`, { body: '{}' })).status, 200);
    assert.equal((await send(`${receiver.boundUrl}${path}`, { body: '{}' })).status, 200);
    assert.deepEqual(
      receiver.deliveriesFor(path).map((d) => d.path),
      [`/pix${path}`, path],
    );
  } finally {
    await receiver.close();
  }
});

test('after close nothing listens on either port, and pending waits end', async () => {
  const receiver = await startReceiver({ host: HOST, port: 0 });
  const { path } = receiver.register();
  const waiting = receiver.waitFor(path, { timeoutMs: 60_000, graceMs: 0 });
  await receiver.close();
  assert.deepEqual(await waiting, []);
  assert.equal(await connectionRefused(receiver.boundUrl), true);
  assert.equal(await connectionRefused(receiver.controlUrl), true);
});

test('keeps at most 10,000 deliveries, dropping the oldest stray first', () => {
  const store = new DeliveryStore();
  store.register('/mine');
  const arrival = (path: string): Arrival => ({
    path,
    method: 'POST',
    headers: {},
    body: '',
    bodyBytes: 0,
    truncated: false,
    receivedAt: Date.now(),
    answeredStatus: 200,
    outcome: 'matched',
  });
  store.record({ ...arrival('/mine'), body: 'first' }, '/mine');
  store.record({ ...arrival('/elsewhere'), outcome: 'stray', answeredStatus: 404 }, undefined);
  for (let i = 2; i < MAX_KEPT_DELIVERIES; i++) store.record(arrival('/mine'), '/mine');

  store.record(arrival('/mine'), '/mine');
  assert.deepEqual([store.all().length, store.strays().length], [MAX_KEPT_DELIVERIES, 0]);
  assert.equal(store.deliveriesFor('/mine')[0]?.body, 'first');

  store.record(arrival('/mine'), '/mine');
  assert.equal(store.all().length, MAX_KEPT_DELIVERIES);
  assert.equal(store.deliveriesFor('/mine')[0]?.seq, 3, 'with no stray left, the oldest delivery goes');
});
