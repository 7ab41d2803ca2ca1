/**
 * pix-certify's checks of the environment before a run (src/run/environment-checks.ts): a live run's
 * first request is on its way before they count as started, since Playwright's runner then holds the
 * thread; the credentials still follow the preflight's answer; a failure reaches the handler.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, type Config } from '../src/config/config.ts';
import { ConfigError } from '../src/config/errors.ts';
import { startEnvironmentChecks } from '../src/run/environment-checks.ts';
import { Worker } from 'node:worker_threads';
import { holdThread } from './support/hold-thread.ts';
import { routerNotFound, serve } from './support/answering-double.ts';
import { DOUBLE_CREDENTIALS } from './support/provider-double.ts';

/** A live run's configuration; without PIX_BASE_URL a run is a mock one. */
const liveConfig = (baseUrl: string): Config => loadConfig({ PIX_BASE_URL: baseUrl, ...DOUBLE_CREDENTIALS });

const failOnCall = (error: unknown): never => {
  throw new Error(`no check should fail here: ${String(error)}`);
};

/**
 * A token endpoint on a thread of its own, so that it takes requests while the test holds the main
 * thread as Playwright's runner does: it answers the first request 403 (the preflight) and any other
 * with a token, and tells when each arrived and whether it carried client_id.
 */
const ENDPOINT_THREAD = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
let count = 0;
const server = createServer((req, res) => {
  count += 1;
  parentPort.postMessage({ arrivedAt: Date.now(), clientId: req.headers.client_id ?? null });
  req.resume();
  res.writeHead(count === 1 ? 403 : 200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(count === 1 ? { error: 'forbidden' } : { access_token: 'the-checked-token' }));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

interface Arrival {
  readonly arrivedAt: number;
  readonly clientId: string | null;
}

interface EndpointThread {
  readonly url: string;
  readonly arrivals: Arrival[];
  /** Once the thread has told of `count` arrivals (its messages come in on this thread's turns). */
  arrived(count: number): Promise<void>;
  stop(): Promise<number>;
}

async function tokenEndpointThread(): Promise<EndpointThread> {
  const thread = new Worker(ENDPOINT_THREAD, { eval: true });
  const arrivals: Arrival[] = [];
  const port = await new Promise<number>((resolve) =>
    thread.on('message', (message: Arrival | { port: number }) => {
      if ('port' in message) resolve(message.port);
      else arrivals.push(message);
    }),
  );
  const arrived = async (count: number): Promise<void> => {
    for (let waited = 0; arrivals.length < count && waited < 5_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
  };
  return { url: `http://127.0.0.1:${port}`, arrivals, arrived, stop: () => thread.terminate() };
}

describe('the environment checks before a run', () => {
  it('a live run sends the preflight before the runner holds the thread, the credentials after its answer', async (t) => {
    const endpoint = await tokenEndpointThread();
    t.after(() => endpoint.stop());

    const { checked } = await startEnvironmentChecks(liveConfig(endpoint.url), failOnCall);
    const HOLD_MS = 500;
    holdThread(HOLD_MS);
    const heldUntil = Date.now();
    // The thread's messages are read from now on: arrivals before heldUntil came while this one was held.
    await endpoint.arrived(1);
    const during = endpoint.arrivals.filter((a) => a.arrivedAt < heldUntil);
    assert.equal(during.length, 1, 'the preflight arrived while the thread was held, and nothing else');
    assert.equal(during[0]?.clientId, null, 'the first request is the preflight, without credentials');

    const { token } = await checked;
    assert.equal(token?.token, 'the-checked-token');
    await endpoint.arrived(2);
    assert.deepEqual(
      endpoint.arrivals.map((a) => a.clientId),
      [null, DOUBLE_CREDENTIALS.PIX_CLIENT_ID],
      'then the credentials, once the preflight was answered',
    );
  });

  it('a mock run has nothing to check without a remote receiver', async () => {
    const config = loadConfig({});
    assert.equal(config.mode, 'mock');
    const { checked } = await startEnvironmentChecks(config, failOnCall);
    assert.deepEqual(await checked, {});
  });

  it('hands a refusal to the handler, once, naming the variable', async () => {
    const closed = await serve(routerNotFound);
    await closed.close();
    const failures: unknown[] = [];
    const { checked } = await startEnvironmentChecks(liveConfig(closed.url), (error) => failures.push(error));
    await assert.rejects(checked);
    assert.equal(failures.length, 1);
    const [failure] = failures;
    assert.ok(failure instanceof ConfigError && failure.variable === 'PIX_BASE_URL', String(failure));
  });
});
