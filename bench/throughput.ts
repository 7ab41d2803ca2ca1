/**
 * The simulator row of npm run bench: valid withdrawals a second, each with its webhook delivered to a
 * local handler, and the latency of their answers (p50, p99), at 16 in flight; side by side with the
 * Prism mock in the same run. Both are driven through their public interfaces only: the simulator as
 * `pix-certify sandbox` serves it (its own process, a namespace made through the control API), the mock
 * as `startMock` starts it (Prism's own process). The load client and the handler share this process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent } from 'undici';
import { serveMockFront } from '../src/run/mock/front.ts';
import { startMock } from '../src/run/mock/prism.ts';
import { SANDBOX_CREDENTIALS } from '../sandbox/credentials.ts';

const ROOT = join(import.meta.dirname, '..');
export const IN_FLIGHT = 16;
/** The withdrawals of one measured pass, after a warm-up pass as large: a tenth left the first measured pass a third slower. */
const WITHDRAWALS = Number(process.env.BENCH_WITHDRAWALS ?? '4000');
/** How long the webhooks of a pass may trail its last answer before the pass counts what came. */
const WEBHOOK_GRACE_MS = 10_000;

interface Target {
  readonly label: string;
  readonly baseUrl: string;
  readonly tokenHeaders: Record<string, string>;
  readonly withdrawalHeaders: (token: string) => Record<string, string>;
}

export interface Pass {
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly answered200: number;
  readonly delivered: number;
  readonly sent: number;
}

/** undici, the lighter of Node's two clients: the load takes less of the 2 cores the targets share. */
async function post(agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  const { origin, pathname, search } = new URL(url);
  const answer = await agent.request({ origin, path: `${pathname}${search}`, method: 'POST', headers, body });
  return { status: answer.statusCode, text: await answer.body.text() };
} // prettier-ignore

/** A webhook handler that answers 200 and counts the deliveries per pass. */
async function startHandler(): Promise<{ url: string; count: () => number; reset: () => void; stop: () => Promise<void>; delivered: () => Promise<void> }> {
  let count = 0;
  let wake: (() => void) | undefined;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      response.writeHead(200).end();
      wake?.();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    reset: () => (count = 0),
    delivered: () => new Promise<void>((resolve) => (wake = resolve)),
    stop: () => new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    }),
  };
} // prettier-ignore

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

async function pass(target: Target, handler: Awaited<ReturnType<typeof startHandler>>, total: number): Promise<Pass> {
  const agent = new Agent({ connections: IN_FLIGHT });
  const token = await post(agent, `${target.baseUrl}/auth/token`, target.tokenHeaders, '');
  const accessToken = (JSON.parse(token.text) as { access_token?: string }).access_token ?? '';
  const headers = target.withdrawalHeaders(accessToken);
  const run = randomBytes(4).toString('hex');
  handler.reset();
  const latencies: number[] = [];
  let next = 0;
  let answered200 = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      const body = JSON.stringify({ amount: 0.01, code: `bench-${run}-${i}`, name: 'Bench Payee', key_type: 'EVP', document: '52998224725', key_pix: '123e4567-e89b-12d3-a456-426614174000', PostBackUrl: `${handler.url}/pix/${i}`, check_code: true });
      const sent = performance.now();
      const answer = await post(agent, `${target.baseUrl}/pix/payment`, headers, body);
      latencies.push(performance.now() - sent);
      if (answer.status === 200) answered200 += 1;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const deadline = performance.now() + WEBHOOK_GRACE_MS;
  while (handler.count() < answered200 && performance.now() < deadline) {
    await Promise.race([handler.delivered(), new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  const elapsedS = (performance.now() - started) / 1000;
  await agent.close();
  const sorted = latencies.sort((a, b) => a - b);
  return { perSecond: total / elapsedS, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), answered200, delivered: handler.count(), sent: total };
} // prettier-ignore

/** `pix-certify sandbox` from the sources, on a free port, with a known control token; resolves with its URL. */
async function startSimulatorProcess(controlToken: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'sandbox.ts')], {
    cwd: ROOT,
    env: { ...process.env, PIX_SANDBOX_PORT: '0', PIX_SANDBOX_CONTROL_TOKEN: controlToken },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Pix sandbox on (\S+?)[.:]?\s/.exec(output);
      if (found?.[1] !== undefined) resolve(found[1].replace(/:$/, ''));
    });
    child.once('exit', (code) => {
      reject(new Error(`pix-certify sandbox exited ${String(code)}`));
    });
  });
  // Its log (a line per request) goes nowhere from now on: a terminal would only slow it.
  child.stdout.removeAllListeners('data');
  child.stdout.resume();
  return { url, child };
} // prettier-ignore

export interface BenchNamespace {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly certClient: string;
}

/** A namespace of a running simulator, made through its control API as a CI script would. */
export async function createNamespace(
  url: string,
  controlToken: string,
  request: { name: string; faults?: 'none' },
): Promise<BenchNamespace> {
  const response = await fetch(`${url}/_sim/namespaces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${controlToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  return (await response.json()) as BenchNamespace;
}

async function simulatorTarget(url: string, controlToken: string): Promise<Target> {
  const ns = await createNamespace(url, controlToken, { name: 'bench', faults: 'none' });
  return {
    label: 'simulator (pix-certify sandbox, a namespace)',
    baseUrl: ns.baseUrl,
    tokenHeaders: { Accept: 'application/json', client_id: ns.clientId, cert_client: ns.certClient },
    withdrawalHeaders: (token) => ({ client_id: ns.clientId, client_secret: ns.clientSecret, accept: 'application/json', Authorization: `Bearer ${token}`, 'content-type': 'application/json' }),
  };
} // prettier-ignore

/** The bare paths: the reference profile, with the sandbox's one client, on the same core as a namespace. */
function referenceTarget(url: string): Target {
  const { clientId, clientSecret, certClient } = SANDBOX_CREDENTIALS;
  return {
    label: 'simulator (pix-certify sandbox, bare reference)',
    baseUrl: url,
    tokenHeaders: { Accept: 'application/json', client_id: clientId, cert_client: certClient },
    withdrawalHeaders: (token) => ({ client_id: clientId, client_secret: clientSecret, accept: 'application/json', Authorization: `Bearer ${token}`, 'content-type': 'application/json' }),
  };
} // prettier-ignore

function prismTarget(url: string, label: string): Target {
  const certClient = Buffer.from('-----BEGIN PUBLIC KEY-----\nbench\n-----END PUBLIC KEY-----\n').toString('base64');
  return {
    label,
    baseUrl: url,
    tokenHeaders: { Accept: 'application/json', client_id: 'bench-client', cert_client: certClient },
    withdrawalHeaders: (token) => ({ client_id: 'bench-client', client_secret: 'bench-secret', accept: 'application/json', Authorization: `Bearer ${token}`, 'content-type': 'application/json' }),
  };
} // prettier-ignore

/**
 * Both targets, each warmed up then measured `rounds` times, interleaved; the lines the bench prints,
 * the median pass of each by rate.
 */
export async function throughputLines(rounds: number): Promise<string[]> {
  const controlToken = randomBytes(24).toString('hex');
  const handler = await startHandler();
  const simulator = await startSimulatorProcess(controlToken);
  const mock = await startMock();
  const front = await serveMockFront({ upstream: mock.url });
  try {
    // Prism bare, and as pix-certify mock serves it since the mock tells no lies: behind our front.
    const targets = [await simulatorTarget(simulator.url, controlToken), prismTarget(mock.url, 'Prism mock (startMock, bare)'), prismTarget(front.url, 'pix-certify mock (Prism behind its front)'), referenceTarget(simulator.url)];
    for (const target of targets) await pass(target, handler, WITHDRAWALS);
    const passes = new Map<Target, Pass[]>(targets.map((t) => [t, []]));
    for (let round = 0; round < rounds; round++) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) passes.get(target)?.push(await pass(target, handler, WITHDRAWALS));
    }
    const median = (target: Target): Pass => {
      const sorted = [...(passes.get(target) ?? [])].sort((a, b) => a.perSecond - b.perSecond);
      return sorted[Math.floor(sorted.length / 2)] as Pass;
    };
    const width = Math.max(...targets.map((t) => t.label.length));
    // Each round's simulator pass beside the Prism pass next to it in time: the machine's drift cancels.
    const pairedRatio = (other: Target): number => {
      const [own, theirs] = [passes.get(targets[0] as Target) ?? [], passes.get(other) ?? []];
      const ratios = own.map((p, i) => p.perSecond / (theirs[i]?.perSecond ?? Number.NaN)).sort((a, b) => a - b);
      return ratios[Math.floor(ratios.length / 2)] ?? Number.NaN;
    };
    const [sim, prism, fronted, reference] = targets.map(median) as [Pass, Pass, Pass, Pass];
    return [
      `throughput: ${WITHDRAWALS} valid withdrawals per pass, ${IN_FLIGHT} in flight, each webhook to a handler in the bench's process; median pass of ${rounds}`,
      ...targets.map((target) => {
        const p = median(target);
        return `${target.label.padEnd(width)}  ${p.perSecond.toFixed(0)} withdrawals/s  p50 ${p.p50Ms.toFixed(1)} ms  p99 ${p.p99Ms.toFixed(1)} ms  ${p.answered200}/${p.sent} answered 200, ${p.delivered} webhooks delivered`;
      }),
      `throughput: the simulator at ×${pairedRatio(targets[1] as Target).toFixed(2)} bare Prism's rate, ×${pairedRatio(targets[2] as Target).toFixed(2)} pix-certify mock's (median of the rounds' ratios; of the medians: ×${(sim.perSecond / prism.perSecond).toFixed(2)}, ×${(sim.perSecond / fronted.perSecond).toFixed(2)})`,
      `throughput: the bare reference at ×${(1 / pairedRatio(targets[3] as Target)).toFixed(2)} a namespace's rate (median of the rounds' ratios; of the medians: ×${(reference.perSecond / sim.perSecond).toFixed(2)})`,
    ];
  } finally {
    simulator.child.kill('SIGTERM');
    await front.close();
    await mock.stop();
    await handler.stop();
  }
} // prettier-ignore
