/**
 * The embedded mock: Prism's own command line, `prism mock openapi/pix-withdrawal.yaml`, run in a
 * worker thread of this process on a free loopback port. The one way the suite starts Prism: through
 * its public CLI, so that it configures itself as `prism mock` always does; in a thread, so that its
 * module loading takes the other core while the caller goes on, and it ends with the process.
 */
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SPEC_PATH } from '../../base/paths.ts';

const require = createRequire(import.meta.url);
/** The `prism` command of @stoplight/prism-cli, as its package.json names it. */
const PRISM_BIN = ((): string => {
  const manifestPath = require.resolve('@stoplight/prism-cli/package.json');
  const { bin } = require(manifestPath) as { bin: string | Record<string, string> };
  return join(dirname(manifestPath), typeof bin === 'string' ? bin : (bin.prism ?? 'dist/index.js'));
})();
const PRISM_THREAD = join(dirname(fileURLToPath(import.meta.url)), 'prism-thread.cjs');

// Generous: Prism loads for about a second of CPU, which a loaded machine may stretch tenfold.
const STARTUP_LIMIT_MS = 60_000;
const PROBE_INTERVAL_MS = 25;

export interface RunningMock {
  readonly url: string;
  stop(): Promise<void>;
}

export interface LaunchedMock extends RunningMock {
  /** Resolves once Prism answers; rejects with its last log lines if it ends or takes too long. */
  readonly ready: Promise<void>;
}

export interface MockOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Prism's own log level; the suite keeps it at `error` so the run's output stays readable. */
  readonly logLevel?: 'info' | 'warn' | 'error' | 'silent';
  /** Where Prism's log lines go; the last lines are kept for the error message anyway. */
  readonly onLog?: (line: string) => void;
}

export async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/**
 * True once something accepts connections at the URL. Prism opens its port only when the spec is
 * loaded, so a connection is readiness enough, and it leaves no request in Prism's log.
 */
export function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.setTimeout(500);
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Polls until something answers at the URL, within the start-up limit. */
export async function waitUntilAnswering(url: string, gaveUp: () => boolean = () => false): Promise<void> {
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  while (!(await answers(url))) {
    if (gaveUp() || Date.now() > deadline) throw new Error(`nothing answers at ${url}`);
    await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
  }
}

/**
 * Starts Prism and returns at once, so that its start-up (about a second of module loading) overlaps
 * whatever the caller does next; `ready` tells when it answers. Once it answers, the thread keeps
 * nothing alive: it ends with the process.
 */
export async function launchMock(options: MockOptions = {}): Promise<LaunchedMock> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port === undefined || options.port === 0 ? await freePort(host) : options.port;
  const url = `http://${host}:${port}`;
  const argv = ['mock', SPEC_PATH, '--host', host, '--port', String(port)];
  argv.push('--cors', 'false', '--multiprocess', 'false', '--verboseLevel', options.logLevel ?? 'error');
  const thread = new Worker(PRISM_THREAD, {
    argv,
    workerData: { bin: PRISM_BIN, url },
    // Plain CommonJS: no loader, whatever flags this process runs under.
    execArgv: [],
    // Prism allocates mostly while loading: a small young generation holds less for the rest of the run.
    resourceLimits: { maxYoungGenerationSizeMb: 6 },
    env: { ...process.env, FORCE_COLOR: '0' },
    stdout: true,
    stderr: true,
  });
  const tail: string[] = [];
  const keep = (chunk: Buffer): void => {
    for (const line of chunk
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')) {
      options.onLog?.(line);
      tail.push(line);
      if (tail.length > 20) tail.shift();
    }
  };
  thread.stdout.on('data', keep);
  thread.stderr.on('data', keep);
  let ended = false;
  const stop = async (): Promise<void> => {
    if (!ended) await thread.terminate();
  };
  const ready = new Promise<void>((resolve, reject) => {
    const fail = (why: string): void => {
      void stop();
      reject(new Error(`The embedded mock (Prism) did not start on ${url}: ${why}\n${tail.join('\n')}`));
    };
    const limit = setTimeout(() => fail(`no answer within ${STARTUP_LIMIT_MS / 1000} s`), STARTUP_LIMIT_MS);
    thread.on('message', (message: { listening?: true }) => {
      if (message.listening !== true) return;
      clearTimeout(limit);
      // Only now: until it answers the caller may wait for it, and its listener would ref it again.
      thread.unref();
      resolve();
    });
    thread.once('error', (error) => {
      clearTimeout(limit);
      fail(error.message);
    });
    thread.once('exit', (code) => {
      ended = true;
      clearTimeout(limit);
      fail(`Prism ended (exit ${code})`);
    });
  });
  // A caller that never awaits `ready` (the workers poll the port themselves) must not crash on it.
  ready.catch(() => undefined);
  return { url, stop, ready };
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const mock = await launchMock(options);
  await mock.ready;
  return mock;
}
