// The embedded mock's thread (prism.ts, mockInThisProcess): Prism's HTTP server, configured as
// `prism mock` configures it (request validation, security checks, static examples), in a worker
// thread of pix-certify's process. A thread, not the main one: Prism's second of module loading then
// runs on the other core beside Playwright's runner, which shares the main thread with certify, and
// there is still no node process of its own. It tells the main thread `listening` or `failed`, and
// sends Prism's log lines as `log`.
const { Buffer } = require('node:buffer');
const { request } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { PassThrough } = require('node:stream');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');

const { specPath, host, port, logLevel } = workerData;

async function serve() {
  // faker's English build first, as the preload does for Prism's own process.
  require('./faker-english-only.cjs');
  const cli = dirname(require.resolve('@stoplight/prism-cli/package.json'));
  const fromCli = createRequire(join(cli, 'package.json'));
  const { createLogger } = fromCli('@stoplight/prism-core');
  const { getHttpOperationsFromSpec } = fromCli('@stoplight/prism-http');
  const { createServer } = fromCli('@stoplight/prism-http-server');
  const { configureExtensionsUserProvided } = fromCli('./dist/extensions.js');
  const log = new PassThrough();
  log.on('data', (chunk) => parentPort.postMessage({ log: chunk.toString('utf8') }));
  const logger = createLogger('CLI', { level: logLevel }, log);
  const operations = await getHttpOperationsFromSpec(specPath);
  await configureExtensionsUserProvided(specPath, {});
  const config = {
    validateRequest: true,
    validateResponse: true,
    checkSecurity: true,
    errors: false,
    upstreamProxy: undefined,
    mock: { dynamic: false, ignoreExamples: false, seed: null },
    isProxy: false,
  };
  const server = createServer(operations, {
    cors: false,
    config,
    components: { logger: logger.child({ name: 'HTTP SERVER' }) },
  });
  await server.listen(port, host);
  parentPort.postMessage({ listening: true });
  await warmUp(host, port);
}

// Prism compiles a route's security check, its validators and its answer on the first request that
// needs them: the first answer takes about 0.1 s, the next ones about 10 ms until V8 has optimised
// them, then 3 to 5 ms. Playwright's worker is still loading for most of a second once the mock
// listens, so the thread spends that time answering a few requests of its own, and the tests' first
// requests find the code ready. None is a valid withdrawal and none names a PostBackUrl: Prism has no
// address to post a webhook to. Each is bounded, and a test's request meanwhile is simply answered.
const WARM_UP_ROUNDS = 3;
const WARM_UP_TIMEOUT_MS = 2_000;
const WARM_UP_REQUESTS = [
  ['/auth/token', { client_id: 'warm-up', cert_client: 'd2FybS11cA==', accept: 'application/json' }, ''],
  ['/auth/token', { accept: 'application/json' }, ''],
  [
    '/pix/payment',
    {
      client_id: 'warm-up',
      client_secret: 'warm-up',
      authorization: 'Bearer warm-up',
      accept: 'application/json',
    },
    '{"amount":"not a number"}',
  ],
  ['/pix/payment', { accept: 'application/json' }, '{}'],
];

async function warmUp(host, port) {
  for (let round = 0; round < WARM_UP_ROUNDS; round += 1)
    for (const [path, headers, body] of WARM_UP_REQUESTS) await answered(host, port, path, headers, body);
}

function answered(host, port, path, headers, body) {
  return new Promise((resolve) => {
    const req = request(
      {
        host,
        port,
        path,
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: WARM_UP_TIMEOUT_MS,
      },
      (res) => res.resume().on('end', resolve).on('error', resolve),
    );
    req.on('timeout', () => req.destroy());
    req.on('error', resolve);
    req.end(body);
  });
}

serve().catch((error) =>
  parentPort.postMessage({ failed: error instanceof Error ? error.message : String(error) }),
);
