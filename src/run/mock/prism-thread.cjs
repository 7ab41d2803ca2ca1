// The embedded mock's thread (prism.ts, mockInThisProcess): Prism's HTTP server, configured as
// `prism mock` configures it (request validation, security checks, static examples), in a worker
// thread of pix-certify's process. A thread, not the main one: Prism's second of module loading then
// runs on the other core beside Playwright's runner, which shares the main thread with certify, and
// there is still no node process of its own. It tells the main thread `listening` or `failed`, and
// sends Prism's log lines as `log`.
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
}

serve().catch((error) =>
  parentPort.postMessage({ failed: error instanceof Error ? error.message : String(error) }),
);
