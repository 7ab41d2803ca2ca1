/**
 * The embedded mock: the real Prism CLI serving openapi/pix-withdrawal.yaml on a free loopback port.
 * It is started, probed until it answers, and stopped with the run; it cannot outlive its parent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEAN_NODE_FLAGS, LEAN_THREAD_LIMITS, leanAllocatorEnvironment } from '../../base/lean-node.ts';
import { SPEC_PATH } from '../../base/paths.ts';

const require = createRequire(import.meta.url);
const PRISM_CLI = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
/** Preloaded into Prism: it exits with its parent, and it loads faker's English build only (see each file). */
const PRELOADS = ['exit-with-parent.cjs', 'faker-english-only.cjs'].map((name) =>
  join(dirname(fileURLToPath(import.meta.url)), name),
);

const STARTUP_LIMIT_MS = 20_000;
const PROBE_INTERVAL_MS = 25;

export interface RunningMock {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
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

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export interface LaunchedMock extends RunningMock {
  /** Resolves once Prism answers; rejects with its last log lines if it exits or takes too long. */
  readonly ready: Promise<void>;
}

/** Polls until something answers HTTP at the URL, within the start-up limit. */
export async function waitUntilAnswering(url: string, gaveUp: () => boolean = () => false): Promise<void> {
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  while (!(await answers(url))) {
    if (gaveUp() || Date.now() > deadline) throw new Error(`nothing answers at ${url}`);
    await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
  }
}

/**
 * Starts Prism and returns at once, so that its start-up (about a second of module loading)
 * overlaps whatever the caller does next; `ready` tells when it answers.
 */
export async function launchMock(options: MockOptions = {}): Promise<LaunchedMock> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port === undefined || options.port === 0 ? await freePort(host) : options.port;
  const url = `http://${host}:${port}`;
  const args = [
    ...LEAN_NODE_FLAGS,
    ...PRELOADS.flatMap((preload) => ['--require', preload]),
    PRISM_CLI,
    'mock',
    SPEC_PATH,
    '--host',
    host,
    '--port',
    String(port),
  ];
  args.push('--cors', 'false', '--multiprocess', 'false', '--verboseLevel', options.logLevel ?? 'error');
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, ...leanAllocatorEnvironment(), FORCE_COLOR: '0' },
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
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // The IPC channel exists only so that Prism notices our death; it must not keep us alive.
  child.channel?.unref();
  const stop = (): Promise<void> => stopChild(child);
  const ready = waitUntilAnswering(url, () => child.exitCode !== null).catch(async () => {
    await stop();
    throw new Error(`The embedded mock (Prism) did not start on ${url}:\n${tail.join('\n')}`);
  });
  return { url, pid: child.pid ?? -1, stop, ready };
}

const PRISM_THREAD = join(dirname(fileURLToPath(import.meta.url)), 'prism-thread.cjs');

/** The embedded mock in a thread of this process: its address now, Prism itself once started. */
export interface MockInThisProcess {
  readonly url: string;
  /**
   * Starts Prism in a thread of this process and resolves once it listens (about a second of loading,
   * on the other core): the caller goes on meanwhile, pix-certify loading Playwright's runner.
   * Once it listens the thread keeps nothing alive and ends with the process, which Playwright ends
   * with the run (its warm-up requests included, whatever is left of them).
   */
  start(): Promise<void>;
}

/**
 * The embedded mock inside this process: Prism's HTTP server in a worker thread (prism-thread.cjs),
 * without a node process of its own (about 100 MB of a mock run's tree), and without blocking the
 * main thread while Prism loads. Its port is chosen now, so the URL can be handed on before Prism is
 * loaded.
 */
export async function mockInThisProcess(options: MockOptions = {}): Promise<MockInThisProcess> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port === undefined || options.port === 0 ? await freePort(host) : options.port;
  return {
    url: `http://${host}:${port}`,
    start: () =>
      new Promise<void>((resolve, reject) => {
        const thread = new Worker(PRISM_THREAD, {
          workerData: { specPath: SPEC_PATH, host, port, logLevel: options.logLevel ?? 'error' },
          // Plain CommonJS: no loader, whatever flags this process runs under.
          execArgv: [],
          resourceLimits: LEAN_THREAD_LIMITS,
          env: { ...process.env, FORCE_COLOR: '0' },
        });
        thread.on('message', (message: { log?: string; listening?: true; failed?: string }) => {
          if (message.listening === true) {
            // Only now: until it listens the caller waits for it, and its port's listener would ref it again.
            thread.unref();
            resolve();
          }
          if (message.failed !== undefined) reject(new Error(message.failed));
          for (const line of (message.log ?? '').split('\n').filter((l) => l.trim() !== ''))
            options.onLog?.(line);
        });
        thread.once('error', reject);
        thread.once('exit', (code) => reject(new Error(`Prism's thread ended (exit ${code})`)));
      }),
  };
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const mock = await launchMock(options);
  await mock.ready;
  return mock;
}
