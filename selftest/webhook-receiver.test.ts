/**
 * Self-test of the webhook receiver (src/receiver/, §4.2 and §6), in this process: what a
 * provider may send it, well-formed or not, is recorded under the right address and answered; only a
 * complete request answered 2xx is a delivery; nothing a sender does stops it; runs reach it only
 * through the control API with the token, and never see each other's addresses or strays.
 * Everything on 127.0.0.1, every loop bounded.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { verdictOf } from '../src/checks/check.ts';
import { webhookDelivered } from '../src/checks/webhook.ts';
import type { Exchange } from '../src/evidence/exchange.ts';
import { ReceiverConnection, WebhookClient } from '../src/webhook/receiver-client.ts';
import { describeAttempt, type Delivery } from '../src/evidence/delivery.ts';
import { startReceiver, type RunningReceiver } from '../src/receiver/receiver.ts';
import { ADDRESS_TAIL, LIMITS, ReceiverStore } from '../src/receiver/store.ts';
import { connectionRefused, send, sendRaw } from './support/receiver-requests.ts';
import { registerSecret } from '../src/secrets/registry.ts';
import { temporaryDir } from './support/temporary.ts';

const HOST = '127.0.0.1';
const TOKEN = 'selftest-receiver-token-0123456789abcdef';

/** A run on the receiver, as global setup opens one for a suite run. */
async function openRun(receiver: RunningReceiver, base = receiver.url): Promise<WebhookClient> {
  const runUrl = await new ReceiverConnection(receiver.url, TOKEN).openRun(base);
  return new WebhookClient(runUrl, TOKEN);
}

const outcomes = (deliveries: readonly Delivery[]): string[] => deliveries.map((d) => d.outcome);

describe('webhook receiver (§4.2, §6)', () => {
  let receiver: RunningReceiver;
  let run: WebhookClient;
  before(async () => {
    receiver = await startReceiver({ host: HOST, port: 0, token: TOKEN, shared: false });
    run = await openRun(receiver);
  });
  after(() => receiver.close());

  test('records a JSON POST to a registered address as a delivery, answers 200 and masks secrets', async () => {
    const canary = `canary-${'x'.repeat(24)}`;
    registerSecret(canary, 'token');
    const { path, url } = await run.register();
    assert.match(path, /^\/[0-9a-f]{32}$/);
    assert.equal(url, `${receiver.url}${path}`);

    const body = JSON.stringify({ code: 'W-1', status: 'paid', echo: canary });
    const answer = await send(url, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${canary}` },
      body,
    });

    assert.deepEqual([answer.status, JSON.parse(answer.body)], [200, { received: true }]);
    const report = await run.waitFor(path, { timeoutMs: 2_000, graceMs: 0 });
    assert.deepEqual([report.incomplete, report.strays.total], [[], 0]);
    const [delivery, ...others] = report.deliveries;
    assert.equal(others.length, 0);
    assert.deepEqual(
      delivery && {
        method: delivery.method,
        path: delivery.path,
        outcome: delivery.outcome,
        answeredStatus: delivery.answeredStatus,
        contentType: delivery.contentType,
        bodyBytes: delivery.bodyBytes,
        declaredBytes: delivery.declaredBytes,
        truncated: delivery.truncated,
        clientCertificate: delivery.clientCertificate,
      },
      {
        method: 'POST',
        path,
        outcome: 'matched',
        answeredStatus: 200,
        contentType: 'application/json',
        bodyBytes: Buffer.byteLength(body),
        declaredBytes: Buffer.byteLength(body),
        truncated: false,
        clientCertificate: null,
      },
    );
    assert.ok(delivery?.body.includes('"code":"W-1"'));
    assert.ok(!JSON.stringify(report).includes(canary), 'the canary secret was stored unmasked');
  });

  test('records a GET to a registered address as a delivery, with its method', async () => {
    const { path, url } = await run.register();
    assert.equal((await send(url, { method: 'GET' })).status, 200);
    const { deliveries } = await run.snapshot(path);
    assert.deepEqual(
      deliveries.map((d) => [d.method, d.outcome, d.bodyBytes]),
      [['GET', 'matched', 0]],
    );
  });

  test('answers a GET that declares a body at once, without waiting for the body, as a GET delivery', async () => {
    const { path } = await run.register();
    // The headers only, the connection left open: the answer must come before any body does.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(receiver.url).port), HOST, () => {
        socket.write(`GET ${path} HTTP/1.1\r\nhost: ${HOST}\r\ncontent-length: 167\r\n\r\n`);
      });
      let text = '';
      socket.setTimeout(5_000, () => socket.destroy(new Error('no answer while the body was awaited')));
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('close', () => {
        resolve(text);
      });
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 200 /);
    const report = await run.waitFor(path, { timeoutMs: 500, graceMs: 0 });
    assert.deepEqual(
      report.deliveries.map((d) => [d.method, d.outcome, d.bodyBytes, d.declaredBytes]),
      [['GET', 'matched', 0, 167]],
    );
    assert.deepEqual(report.incomplete, []);
  });

  test('keeps a body that is not JSON as it came', async () => {
    const { path, url } = await run.register();
    const text = 'status=paid&code=W-2';
    assert.equal((await send(url, { headers: { 'content-type': 'text/plain' }, body: text })).status, 200);
    assert.deepEqual(
      (await run.snapshot(path)).deliveries.map((d) => [d.outcome, d.body]),
      [['matched', text]],
    );
  });

  test('lists a request to another path as a stray, answered 404, with metadata only', async () => {
    const { path } = await run.register();
    assert.equal((await send(`${receiver.url}/elsewhere?code=1`, { body: 'hello' })).status, 404);
    const report = await run.snapshot(path);
    assert.deepEqual(report.deliveries, []);
    const stray = report.strays.listed.find((d) => d.path === '/elsewhere');
    assert.deepEqual(
      [stray?.method, stray?.outcome, stray?.bodyBytes, stray?.answeredStatus],
      ['POST', 'stray', 5, 404],
    );
    assert.ok(stray && !('body' in stray) && !('headers' in stray), 'a stray carries its body or headers');
  });

  test('a body over the cap is refused with 413, kept as incomplete and never a delivery', async () => {
    const { path, url } = await run.register();
    const answer = await send(url, {
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(2 * 1024 * 1024, 'a'),
    });
    assert.equal(answer.status, 413);
    const { deliveries, incomplete } = await run.snapshot(path);
    assert.deepEqual(deliveries, []);
    const [attempt] = incomplete;
    assert.deepEqual(
      [attempt?.outcome, attempt?.answeredStatus, attempt?.truncated, attempt?.body.length],
      ['too-large', 413, true, 64 * 1024],
    );
    assert.ok((attempt?.bodyBytes ?? 0) > 1024 * 1024);
    assert.ok((attempt?.bodyBytes ?? Infinity) < 2 * 1024 * 1024, 'the whole oversized body was read');
    assert.match(incomplete.map(describeAttempt).join(), /refused with 413 after \d+ of 2097152 bytes/);
  });

  test('headers and half a body, then a dropped connection, is kept as cut and never a delivery', async () => {
    const { path } = await run.register();
    await sendRaw(
      receiver.url,
      `POST ${path} HTTP/1.1\r\nhost: ${HOST}\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n${'{"partial":'.padEnd(120, ' ')}`,
      { hangUp: true },
    );
    const report = await run.waitFor(path, { timeoutMs: 500, graceMs: 0 });
    assert.deepEqual(report.deliveries, []);
    assert.deepEqual(
      report.incomplete.map((d) => [d.outcome, d.answeredStatus, d.bodyBytes, d.declaredBytes]),
      [['aborted', null, 120, 400]],
    );
    assert.deepEqual(report.incomplete.map(describeAttempt), [
      'a POST to the address was cut after 120 of 400 bytes',
    ]);
  });

  test('a webhook cut mid-body, then one over the cap, make WEBHOOK-DELIVERED FAILED with what arrived', async () => {
    const { path, url } = await run.register();
    await sendRaw(
      receiver.url,
      `POST ${path} HTTP/1.1\r\nhost: ${HOST}\r\ncontent-length: 400\r\n\r\n${'{'.padEnd(120, ' ')}`,
      { hangUp: true },
    );
    assert.equal((await send(url, { body: Buffer.alloc(1024 * 1024 + 1, ' ') })).status, 413);
    const { deliveries, incomplete, strays } = await run.waitFor(path, { timeoutMs: 300, graceMs: 0 });
    const withdrawal: Exchange = {
      operation: 'createWithdraw',
      request: { method: 'POST', url: 'http://127.0.0.1:1/pix/payment', headers: {}, body: undefined },
      response: { status: 200, headers: {}, contentType: '', bodyText: '', json: undefined },
      durationMs: 1,
    };
    const input = {
      withdrawal,
      code: 'W-3',
      postBackUrl: url,
      deliveries,
      incomplete,
      strays,
      timeoutMs: 300,
    };
    const violations = webhookDelivered.judge(input);
    assert.equal(verdictOf(violations), 'FAILED');
    assert.match(
      violations[0]?.actual ?? '',
      /^no complete delivery within 300 ms: a POST to the address was cut after 120 of 400 bytes; a POST to the address was refused with 413 after \d+ (of 1048577 )?bytes, over the receiver's size limit$/,
    );
    // Handed the attempts as if they were deliveries, the check still does not count them.
    assert.equal(verdictOf(webhookDelivered.judge({ ...input, deliveries: incomplete })), 'FAILED');
  });

  test('HTTP that breaks mid-request is kept as malformed, answered 400, never a delivery', async () => {
    const { path } = await run.register();
    const answer = await sendRaw(
      receiver.url,
      `POST ${path} HTTP/1.1\r\nhost: ${HOST}\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\nnot-a-chunk-size\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 400 /);
    const report = await run.snapshot(path);
    assert.deepEqual([report.deliveries, outcomes(report.incomplete)], [[], ['malformed']]);
    assert.equal(report.incomplete[0]?.answeredStatus, 400);
  });

  test('a malformed request line is answered 400 and listed as a stray, and the receiver stays up', async () => {
    const { path, url } = await run.register();
    assert.match(await sendRaw(receiver.url, 'THIS IS NOT HTTP\r\n\r\n'), /^HTTP\/1\.1 400 /);
    assert.equal((await send(url, { body: '{}' })).status, 200);
    const report = await run.snapshot(path);
    assert.deepEqual(
      report.strays.listed.map((d) => [d.method, d.path, d.outcome, d.answeredStatus]),
      [['?', '?', 'malformed', 400]],
    );
    assert.deepEqual(outcomes(report.deliveries), ['matched']);
  });

  test('records every one of 1,000 concurrent deliveries across 100 addresses', async () => {
    const addresses = await Promise.all(Array.from({ length: 100 }, () => run.register()));
    // Bounded sockets, so that the test itself does not run out of file descriptors.
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 1_000 }, (_, i) =>
          send(addresses[i % addresses.length]?.url ?? '', {
            agent,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ n: i }),
          }),
        ),
      );
      assert.ok(answers.every((a) => a.status === 200));
    } finally {
      agent.destroy();
    }
    const reports = await Promise.all(addresses.map(({ path }) => run.snapshot(path)));
    assert.deepEqual(
      reports.map((r) => r.deliveries.length),
      Array.from({ length: 100 }, () => 10),
    );
    const numbers = new Set(
      reports.flatMap((r) => r.deliveries.map((d) => (JSON.parse(d.body) as { n: number }).n)),
    );
    assert.equal(numbers.size, 1_000);
  });

  test('a flood of 10,000 strays costs a bounded answer and leaves deliveries intact', async () => {
    const { path, url } = await run.register();
    const sockets = 10;
    const perSocket = 1_000;
    // Pipelined on a few connections: the flood a provider (or anyone) can send, without 10,000 handshakes.
    const flood = Array.from({ length: sockets }, (_, s) =>
      sendRaw(
        receiver.url,
        Array.from(
          { length: perSocket },
          (_, i) =>
            `POST /flood-${s}-${i} HTTP/1.1\r\nhost: ${HOST}\r\ncontent-type: application/json\r\ncontent-length: 1024\r\n${i === perSocket - 1 ? 'connection: close\r\n' : ''}\r\n${'x'.repeat(1024)}`,
        ).join(''),
      ),
    );
    const answers = await Promise.all(flood);
    assert.equal(answers.join('').match(/HTTP\/1\.1 404 /g)?.length, sockets * perSocket);
    assert.equal((await send(url, { body: '{"after":"flood"}' })).status, 200);

    const report = await run.snapshot(path);
    assert.deepEqual(outcomes(report.deliveries), ['matched']);
    assert.equal(report.strays.total, sockets * perSocket);
    assert.equal(report.strays.listed.length, LIMITS.listedStrays);
    assert.ok(
      JSON.stringify(report).length < 64 * 1024,
      `a poll answered ${JSON.stringify(report).length} characters after the flood`,
    );
  });

  test('waitFor answers what arrived when no delivery came within the timeout', async () => {
    const { path } = await run.register();
    const report = await run.waitFor(path, { timeoutMs: 150, graceMs: 1_000 });
    assert.deepEqual([report.deliveries, report.incomplete], [[], []]);
  });

  test('waitFor keeps listening for the grace period and catches a duplicate', async () => {
    const { path, url } = await run.register();
    // The duplicate leaves once the first was answered: a grace of 2 s is ample for it on any machine.
    const waiting = run.waitFor(path, { timeoutMs: 10_000, graceMs: 2_000 });
    await send(url, { body: '{"attempt":1}' });
    await send(url, { body: '{"attempt":2}' });
    assert.deepEqual(
      (await waiting).deliveries.map((d) => d.body),
      ['{"attempt":1}', '{"attempt":2}'],
    );
  });

  test('a cut request does not end the wait: the retry that completes is the delivery', async () => {
    const { path, url } = await run.register();
    const waiting = run.waitFor(path, { timeoutMs: 3_000, graceMs: 0 });
    await sendRaw(receiver.url, `POST ${path} HTTP/1.1\r\nhost: ${HOST}\r\ncontent-length: 10\r\n\r\n{"a"`, {
      hangUp: true,
    });
    // The retry only once the receiver has kept the cut request, so that the wait has seen both.
    for (let polls = 0; (await run.snapshot(path)).incomplete.length === 0; polls += 1)
      assert.ok(polls < 500, 'the cut request was never kept');
    await send(url, { body: '{"a":1}' });
    const report = await waiting;
    assert.deepEqual([outcomes(report.deliveries), outcomes(report.incomplete)], [['matched'], ['aborted']]);
  });

  test('an address registered to refuse its first delivery answers that POST 503 once, then 200', async () => {
    const { path, url } = await run.register({ refuseFirst: 503 });
    // A GET is no delivery to refuse; a cut POST neither: the first complete POST is.
    assert.equal((await send(url, { method: 'GET' })).status, 200);
    const first = await send(url, { body: '{"status":"PAID","attempt":1}' });
    assert.deepEqual(
      [first.status, (JSON.parse(first.body) as { received: unknown }).received],
      [503, false],
    );
    const second = await send(url, { body: '{"status":"PAID","attempt":2}' });
    assert.equal(second.status, 200);
    const report = await run.snapshot(path);
    assert.deepEqual(
      [outcomes(report.deliveries), outcomes(report.incomplete)],
      [['matched', 'matched'], ['declined']],
    );
    const [declined] = report.incomplete;
    assert.deepEqual(
      [declined?.answeredStatus, declined?.summary?.statuses, declined?.body],
      [503, ['PAID'], '{"status":"PAID","attempt":1}'],
    );
    assert.match(describeAttempt(declined ?? assert.fail()), /answered 503 on purpose/);
  });

  test('of two first deliveries at once, exactly one is refused', async () => {
    const { path, url } = await run.register({ refuseFirst: 503 });
    const statuses = await Promise.all([send(url, { body: '{"n":1}' }), send(url, { body: '{"n":2}' })]);
    assert.deepEqual(statuses.map((a) => a.status).sort(), [200, 503]);
    assert.deepEqual(outcomes((await run.snapshot(path)).incomplete), ['declined']);
  });

  test("waitFor until 'attempt' ends at the refused delivery; the plain wait goes on to the one delivered", async () => {
    const { path, url } = await run.register({ refuseFirst: 503 });
    const attempt = run.waitFor(path, { timeoutMs: 3_000, graceMs: 0, until: 'attempt' });
    const delivery = run.waitFor(path, { timeoutMs: 3_000, graceMs: 0 });
    await send(url, { body: '{"attempt":1}' });
    const atRefusal = await attempt;
    assert.deepEqual([outcomes(atRefusal.deliveries), outcomes(atRefusal.incomplete)], [[], ['declined']]);
    await send(url, { body: '{"attempt":2}' });
    assert.deepEqual(outcomes((await delivery).deliveries), ['matched']);
  });
});

describe('control API', () => {
  let receiver: RunningReceiver;
  before(async () => {
    receiver = await startReceiver({ host: HOST, port: 0, token: TOKEN, shared: true });
  });
  after(() => receiver.close());

  test('answers 401 without the token or with a wrong one, and takes the right one', async () => {
    const health = `${receiver.url}/_receiver/v1/health`;
    const none = await send(health, { method: 'GET' });
    assert.deepEqual(
      [none.status, none.headers['www-authenticate']],
      [401, 'Bearer realm="pix-webhook-receiver"'],
    );
    const wrong = await send(health, { method: 'GET', headers: { authorization: `Bearer ${TOKEN}x` } });
    assert.equal(wrong.status, 401);
    const runs = await send(`${receiver.url}/_receiver/v1/runs?base=http://a.example`);
    assert.equal(runs.status, 401);
    assert.deepEqual(await new ReceiverConnection(receiver.url, TOKEN).health(), {
      receiver: 'pix-webhook-receiver',
      api: 1,
      tls: false,
      clientCertificates: 'off',
    });
    await assert.rejects(new ReceiverConnection(receiver.url, `${TOKEN}x`).health(), /answered 401/);
  });

  test("a run never reads, registers under or lists another run's addresses and strays", async () => {
    const mine = await openRun(receiver);
    const theirs = await openRun(receiver);
    const own = await mine.register();
    const other = await theirs.register();

    assert.equal((await send(other.url, { body: '{"run":"theirs"}' })).status, 200);
    // Strays that name an address belong to its run; strays that name none belong to no run.
    assert.equal((await send(`${other.url}/status`, { body: '{}' })).status, 404);
    assert.equal((await send(`${receiver.url}/webhook`, { body: '{}' })).status, 404);

    await assert.rejects(mine.snapshot(other.path), /answered 404/);
    const report = await mine.snapshot(own.path);
    assert.deepEqual([report.deliveries, report.strays.listed, report.strays.total], [[], [], 0]);
    assert.equal(report.strays.unlisted, 1, 'the stray of no run is counted');
    assert.ok(!JSON.stringify(report).includes(other.path.slice(1)));

    const theirReport = await theirs.snapshot(other.path);
    assert.deepEqual(outcomes(theirReport.deliveries), ['matched']);
    assert.deepEqual(
      theirReport.strays.listed.map((d) => d.path),
      [`${other.path}/status`],
    );
  });

  test('closing a run unregisters its addresses: later requests to them are strays of no run', async () => {
    const connection = new ReceiverConnection(receiver.url, TOKEN);
    const runUrl = await connection.openRun(receiver.url);
    const client = new WebhookClient(runUrl, TOKEN);
    const { path, url } = await client.register();
    await connection.closeRun(runUrl);
    assert.equal((await send(url, { body: '{}' })).status, 404);
    await assert.rejects(client.snapshot(path), /answered 404/);
    await assert.rejects(connection.closeRun(runUrl), /answered 404/);
  });

  test('refuses what it cannot serve with an error status, never by failing', async () => {
    const run = await openRun(receiver);
    const { path } = await run.register();
    const runUrl = await new ReceiverConnection(receiver.url, TOKEN).openRun(receiver.url);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const requests: [string, string][] = [
      [`${runUrl}/addresses${path}?timeoutMs=soon`, 'GET'],
      [`${runUrl}/addresses/${'0'.repeat(32)}`, 'GET'],
      [`${runUrl}/addresses${path}`, 'PUT'],
      [`${receiver.url}/_receiver/v1/runs?base=not-a-url`, 'POST'],
      [`${receiver.url}/_receiver/v1/runs/${'f'.repeat(32)}`, 'DELETE'],
      [`${receiver.url}/_receiver/v1/nothing`, 'GET'],
      [`${runUrl}/addresses?refuseFirst=200`, 'POST'],
      [`${runUrl}/addresses?refuseFirst=5000`, 'POST'],
      [`${runUrl}/addresses${path}?until=later`, 'GET'],
    ];
    const statuses = await Promise.all(
      requests.map(async ([url, method]) => (await send(url, { method, headers: auth })).status),
    );
    assert.deepEqual(statuses, [400, 404, 405, 400, 404, 404, 400, 400, 400]);
  });
});

test('matches an address registered whole on its path and query, under the public base or not (§6)', async () => {
  const receiver = await startReceiver({ host: HOST, port: 0, token: TOKEN, shared: false });
  try {
    const run = await openRun(receiver, 'https://hooks.example.test/pix/');
    const { path, url } = await run.register({ whole: true });
    assert.equal(url, `https://hooks.example.test/pix${path}${ADDRESS_TAIL}`);
    const [tailPath = '', query = ''] = ADDRESS_TAIL.split('?');
    const sent = [
      `/pix${path}${ADDRESS_TAIL}`,
      // The same characters: a percent-escape's hex digits in either case (RFC 3986).
      `${path}${ADDRESS_TAIL.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())}`,
      `${path}${tailPath}`,
      `${path}${tailPath}?${decodeURIComponent(query)}`,
      // Letters folded: the tail carries both cases, and a path is case-sensitive (RFC 3986 §6.2.2.1).
      `${path}${tailPath.toLowerCase()}?${query}`,
      `${path}${tailPath}?${query.toLowerCase()}`,
    ];
    const statuses: number[] = [];
    for (const target of sent) statuses.push((await send(`${receiver.url}${target}`, { body: '{}' })).status);
    assert.deepEqual(statuses, [200, 200, 404, 404, 404, 404]);
    const report = await run.snapshot(path);
    assert.deepEqual(
      report.deliveries.map((d) => d.path),
      sent.slice(0, 2),
    );
    // A query dropped or decoded is another address: the stray keeps it, to show beside the PostBackUrl.
    assert.deepEqual(
      report.strays.listed.map((d) => d.path),
      sent.slice(2),
    );
  } finally {
    await receiver.close();
  }
});

test('keeps the path of the public base in addresses and takes deliveries with or without it', async () => {
  const receiver = await startReceiver({ host: HOST, port: 0, token: TOKEN, shared: false });
  try {
    const run = await openRun(receiver, 'https://hooks.example.test/pix/');
    const { path, url } = await run.register();
    assert.equal(url, `https://hooks.example.test/pix${path}`);
    assert.equal((await send(`${receiver.url}/pix${path}`, { body: '{}' })).status, 200);
    assert.equal((await send(`${receiver.url}${path}`, { body: '{}' })).status, 200);
    assert.equal((await send(`${receiver.url}/other${path}`, { body: '{}' })).status, 404);
    const report = await run.snapshot(path);
    assert.deepEqual(
      report.deliveries.map((d) => d.path),
      [`/pix${path}`, path],
    );
    assert.deepEqual(
      report.strays.listed.map((d) => d.path),
      [`/other${path}`],
    );
  } finally {
    await receiver.close();
  }
});

test('after close nothing listens, and pending waits end', async () => {
  const receiver = await startReceiver({ host: HOST, port: 0, token: TOKEN, shared: false });
  const store = new ReceiverStore({ shared: false });
  const run = await store.openRun('http://127.0.0.1');
  const { path } = await store.register(run.key);
  const waiting = store.waitFor(run.key, path, {
    timeoutMs: 60_000,
    graceMs: 0,
    signal: new AbortController().signal,
  });
  await Promise.all([receiver.close(), store.close()]);
  await waiting;
  assert.equal(await connectionRefused(receiver.url), true);
});

test('with a data directory, what was acknowledged survives a restart; a closed run leaves no file', async () => {
  const dataDir = temporaryDir('pix-receiver-data-');
  const options = { host: HOST, port: 0, token: TOKEN, shared: true, dataDir } as const;
  const first = await startReceiver(options);
  const connection = new ReceiverConnection(first.url, TOKEN);
  const runUrl = await connection.openRun('http://hooks.example.test');
  const { path } = await new WebhookClient(runUrl, TOKEN).register();
  assert.equal((await send(`${first.url}${path}`, { body: '{"kept":true}' })).status, 200);
  await first.close();

  const second = await startReceiver(options);
  try {
    assert.equal(second.restoredRuns, 1);
    const moved = runUrl.replace(first.url, second.url);
    const report = await new WebhookClient(moved, TOKEN).snapshot(path);
    assert.deepEqual(
      report.deliveries.map((d) => d.body),
      ['{"kept":true}'],
    );
    await new ReceiverConnection(second.url, TOKEN).closeRun(moved);
    assert.deepEqual(readdirSync(dataDir), []);
  } finally {
    await second.close();
  }
});

test('a refusal asked for at registration survives a restart, and one given is not given again', async () => {
  const dataDir = temporaryDir('pix-receiver-data-');
  const options = { host: HOST, port: 0, token: TOKEN, shared: true, dataDir } as const;
  const first = await startReceiver(options);
  const runUrl = await new ReceiverConnection(first.url, TOKEN).openRun('http://hooks.example.test');
  const client = new WebhookClient(runUrl, TOKEN);
  const [given, pending] = [
    await client.register({ refuseFirst: 503 }),
    await client.register({ refuseFirst: 502 }),
  ];
  assert.equal((await send(`${first.url}${given.path}`, { body: '{}' })).status, 503);
  await first.close();

  const second = await startReceiver(options);
  try {
    assert.equal((await send(`${second.url}${given.path}`, { body: '{}' })).status, 200);
    assert.equal((await send(`${second.url}${pending.path}`, { body: '{}' })).status, 502);
    await new ReceiverConnection(second.url, TOKEN).closeRun(runUrl.replace(first.url, second.url));
  } finally {
    await second.close();
  }
});

test('a receiver that does not refuse a first delivery is an error for the retry probe, not a probe of nothing', async () => {
  // An older receiver: it registers the address and ignores refuseFirst.
  const older = createServer((req, res) => {
    req.resume();
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: `/${'a'.repeat(32)}`, url: `http://127.0.0.1/${'a'.repeat(32)}` }));
  });
  await new Promise<void>((resolve) => older.listen(0, HOST, resolve));
  try {
    const { port } = older.address() as AddressInfo;
    const client = new WebhookClient(`http://${HOST}:${port}/_receiver/v1/runs/${'b'.repeat(32)}`, TOKEN);
    assert.equal((await client.register()).path, `/${'a'.repeat(32)}`);
    await assert.rejects(client.register({ refuseFirst: 503 }), /does not refuse a first delivery/);
  } finally {
    older.closeAllConnections();
    await new Promise((resolve) => older.close(resolve));
  }
});

test('registers once more after a connection reset, as a kept-alive connection the receiver just closed gives', async () => {
  let requests = 0;
  const flaky = createServer((req, res) => {
    req.resume();
    requests++;
    if (requests === 1) {
      req.socket.destroy();
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: `/${'c'.repeat(32)}`, url: `http://127.0.0.1/${'c'.repeat(32)}` }));
  });
  await new Promise<void>((resolve) => flaky.listen(0, HOST, resolve));
  try {
    const { port } = flaky.address() as AddressInfo;
    const client = new WebhookClient(`http://${HOST}:${port}/_receiver/v1/runs/${'d'.repeat(32)}`, TOKEN);
    assert.equal((await client.register()).path, `/${'c'.repeat(32)}`);
    assert.equal(requests, 2);
  } finally {
    flaky.closeAllConnections();
    await new Promise((resolve) => flaky.close(resolve));
  }
});

test('keeps at most the per-address number of deliveries and counts the rest', async () => {
  const store = new ReceiverStore({ shared: false });
  const run = await store.openRun('http://127.0.0.1');
  const { path } = await store.register(run.key);
  const location = store.locate(path);
  const arrival = {
    path,
    method: 'POST',
    contentType: null,
    bodyBytes: 0,
    declaredBytes: 0,
    receivedAt: Date.now(),
    answeredStatus: 200,
    outcome: 'matched',
    clientCertificate: null,
    headers: {},
    body: '',
    truncated: false,
  } as const;
  for (let i = 0; i < LIMITS.maxDeliveriesPerAddress + 5; i++) await store.record(location, arrival);
  const report = store.report(run.key, path);
  assert.equal(report.deliveries.length, LIMITS.listedDeliveries);
  assert.equal(report.unlistedDeliveries, LIMITS.maxDeliveriesPerAddress + 5 - LIMITS.listedDeliveries);
  await store.close();
});
