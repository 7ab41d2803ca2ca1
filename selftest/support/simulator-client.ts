/** A plain HTTP client of the simulator and a webhook handler, as an integrator's test would use them. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { after, before } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../sandbox/server.ts';
import { inventWithdrawal } from './data.ts';
import { TEST_PAYEE } from './live-env.ts';
import { TYPESCRIPT_LOADER } from './run-suite.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

export interface Delivered {
  readonly at: number;
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Namespace {
  readonly name: string;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly certClient: string;
}

/** A webhook handler: records every delivery, and answers 500 to the paths it is told to refuse. */
export class Handler {
  readonly deliveries: Delivered[] = [];
  readonly refused = new Set<string>();
  /** Paths answered with a status of their own (a handler that refuses malformed JSON with 400). */
  readonly answers = new Map<string, number>();
  private readonly server: Server;
  private waiters: (() => void)[] = [];
  url = '';

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        this.deliveries.push({ at: performance.now(), path, method: request.method ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
        response.writeHead(this.answers.get(path) ?? (this.refused.has(path) ? 500 : 200)).end();
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  } // prettier-ignore

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  at(path: string): Delivered[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  /** Resolves once `count` deliveries reached the path, or at the deadline with what came. */
  async awaitDeliveries(path: string, count: number, deadline: number): Promise<Delivered[]> {
    while (this.at(path).length < count && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.at(path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => {
        resolve();
      });
      this.server.closeAllConnections();
    });
  }
}

/** A simulator and a webhook handler started before the file's tests and closed after them. */
export function simulatorWithHandler(): { simulator: () => RunningSandbox; handler: Handler } {
  const handler = new Handler();
  let sandbox: RunningSandbox | undefined;
  before(async () => {
    sandbox = await startSandbox();
    await handler.start();
  });
  after(async () => {
    await sandbox?.close();
    await handler.close();
  });
  const simulator = (): RunningSandbox => {
    assert.ok(sandbox !== undefined, 'the simulator started');
    return sandbox;
  };
  return { simulator, handler };
}

/** A plain node:http client: the status, or null when no answer came within `timeoutMs`; a gzip body is read as a client reads it. */
export function send(url: string, headers: Record<string, string>, body: string, timeoutMs = 5_000): Promise<{ status: number | null; headers: IncomingHttpHeaders; raw: Buffer; json: Record<string, unknown> | undefined; sentAt: number; answeredAt: number }> {
  const sentAt = performance.now();
  return new Promise((resolve) => {
    const request = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } });
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ status: null, headers: {}, raw: Buffer.alloc(0), json: undefined, sentAt, answeredAt: performance.now() });
    }, timeoutMs);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        const raw = Buffer.concat(chunks);
        const text = (response.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString();
        const json = /^application\/(?:[\w.-]+\+)?json/.test(response.headers['content-type'] ?? '') ? (JSON.parse(text) as Record<string, unknown>) : undefined;
        resolve({ status: response.statusCode ?? 0, headers: response.headers, raw, json, sentAt, answeredAt: performance.now() });
      });
    });
    request.on('error', () => undefined);
    request.end(body);
  });
} // prettier-ignore

export function control(sandbox: RunningSandbox, method: string, path: string, body?: unknown, token = sandbox.controlToken): Promise<Response> {
  return fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
} // prettier-ignore

export async function createNamespace(
  sandbox: RunningSandbox,
  name: string,
  faults = 'none',
): Promise<Namespace> {
  const response = await control(sandbox, 'POST', '/_sim/namespaces', { name, faults });
  assert.equal(response.status, 201);
  return (await response.json()) as Namespace;
}

export async function tokenOf(namespace: Namespace): Promise<string> {
  const { status, json } = await send(`${namespace.baseUrl}/auth/token`, { Accept: 'application/json', client_id: namespace.clientId, cert_client: namespace.certClient }, ''); // prettier-ignore
  assert.equal(status, 200);
  return (json?.access_token ?? json?.token) as string;
}

export function withdrawalHeaders(namespace: Namespace, token: string): Record<string, string> {
  return { client_id: namespace.clientId, client_secret: namespace.clientSecret, accept: 'application/json', Authorization: `Bearer ${token}`, 'content-type': 'application/json' }; // prettier-ignore
}

export function withdrawalBody(amount: number, postBackUrl: string, code = inventWithdrawal().code): string {
  return JSON.stringify({ amount, code, name: TEST_PAYEE.PIX_PAYEE_NAME, key_type: TEST_PAYEE.PIX_PAYEE_KEY_TYPE, document: TEST_PAYEE.PIX_PAYEE_DOCUMENT, key_pix: TEST_PAYEE.PIX_PAYEE_KEY, PostBackUrl: postBackUrl, check_code: true }); // prettier-ignore
}

export const sandboxCli = (args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number }> =>
  run(process.execPath, ['--import', TYPESCRIPT_LOADER, join(ROOT, 'bin', 'sandbox.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (error: unknown) => {
      const failed = error as { stdout: string; stderr: string; code: number };
      return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
    },
  ); // prettier-ignore

export interface JournaledDelivery {
  readonly url: string;
  readonly durationMs: number;
  readonly answer: { status: number | null; error?: string };
}

/** A namespace's journaled deliveries once there are `count`; fails at the deadline with how many came. */
export async function journalDeliveries(simulator: RunningSandbox, name: string, count: number, deadline: number): Promise<JournaledDelivery[]> {
  for (;;) {
    const { deliveries } = (await (await control(simulator, 'GET', `/_sim/namespaces/${name}/journal`)).json()) as { deliveries: JournaledDelivery[] };
    if (deliveries.length >= count) return deliveries;
    assert.ok(performance.now() < deadline, `${deliveries.length} of ${count} deliveries journaled`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
} // prettier-ignore

export async function createNamespaceOn(simulator: RunningSandbox, name: string): Promise<Namespace> {
  await control(simulator, 'POST', `/_sim/namespaces/${name}/reset`);
  const response = await control(simulator, 'POST', '/_sim/namespaces', { name, faults: 'none' });
  return (await response.json()) as Namespace;
}
