/**
 * One gate for the whole run across Playwright's worker processes: global setup serves a local gate
 * on loopback (a random token guards it) and every worker asks it for a slot before each request
 * and hands the slot back after, or for the environment to itself (an exclusive section). A slot a
 * worker never hands back (it died) is taken back after its lease, so one crash cannot stall the
 * run. The same channel serves the run's token desk (token-desk.ts).
 */
import { randomBytes } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.ts';
import {
  fits,
  gateSettingsOf,
  localGate,
  sectionGate,
  type Gate,
  type GateSettings,
  type LocalGate,
  type PauseRequest,
  type Tell,
  WaitBudgetSpent,
} from './gate.ts';
import { IDLE_CONNECTION_MS } from './http.ts';
import { localDesk, type HeldToken, type TokenDesk } from './token-desk.ts';
import { localBound, type WithdrawalBound } from './withdrawal-bound.ts';

export interface SharedGate {
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

const DESK_LIMIT_BYTES = 8 * 1024 * 1024;

/** Whether the desk can serve this token to the workers: its answer must fit what they read. */
export function deskCanHold(held: HeldToken): boolean {
  return Buffer.byteLength(JSON.stringify({ held })) <= DESK_LIMIT_BYTES;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // A pause request is a few dozen bytes and a token rarely more than a few KB (one the suite
      // warns about, TOKEN-SIZE, may be hundreds); anything past this is not ours to hold.
      if (size <= DESK_LIMIT_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'));
      } catch {
        resolve(null);
      }
    });
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** An exclusive section may send several requests, each bounded by the lease of one. */
const EXCLUSIVE_LEASES = 10;

/**
 * Serves `gate`, `desk` and the run's withdrawal `bound` to the run's workers until closed; `leaseMs`
 * bounds how long a slot is held.
 */
export async function serveGate(
  gate: LocalGate,
  leaseMs: number,
  desk: TokenDesk = localDesk(),
  bound: WithdrawalBound = localBound(undefined),
): Promise<SharedGate> {
  const token = randomBytes(24).toString('hex');
  const held = new Map<number, () => void>();
  let next = 0;
  /**
   * Grants a slot, or the whole environment, to the worker asking on `res`, until it releases it; the
   * grant carries the limits the run keeps now, which a section's own gate keeps too.
   */
  const grant = (res: ServerResponse, hold: (work: () => Promise<void>) => Promise<void>, lease: number) => {
    const id = ++next;
    hold(
      () =>
        new Promise<void>((release) => {
          // The worker went away while it was queued: it will never send, so the slot is free at once.
          if (res.destroyed) {
            release();
            return;
          }
          const expiry = setTimeout(release, lease);
          held.set(id, () => {
            clearTimeout(expiry);
            release();
          });
          reply(res, 200, { id, settings: gate.settings() });
        }),
    ).catch((error: unknown) => {
      // The wait budget is spent: the worker is told so instead of a slot, and sends nothing.
      if (error instanceof WaitBudgetSpent && !res.headersSent) reply(res, 200, { spent: error.message });
    });
  };
  const server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      reply(res, 403, { error: 'not this run' });
      return;
    }
    const released = /^\/release\/(\d+)$/.exec(req.url ?? '');
    if (req.method === 'POST' && req.url === '/slot') grant(res, (work) => gate.run(work), leaseMs);
    else if (req.method === 'POST' && req.url === '/slot/token')
      grant(res, (work) => gate.run(work, 'token'), leaseMs);
    else if (req.method === 'POST' && req.url === '/exclusive')
      grant(res, (work) => gate.exclusive(work), EXCLUSIVE_LEASES * leaseMs);
    else if (req.method === 'POST' && req.url === '/holding-tokens')
      grant(res, (work) => gate.holdingTokens(work), EXCLUSIVE_LEASES * leaseMs);
    else if (req.method === 'POST' && released !== null) {
      const id = Number(released[1]);
      held.get(id)?.();
      held.delete(id);
      reply(res, 200, {});
    } else if (req.method === 'POST' && req.url === '/pause') {
      void readJson(req).then(async (body) => {
        const asked = body as Partial<PauseRequest> | null;
        if (typeof asked?.ms !== 'number' || typeof asked.why !== 'string') {
          reply(res, 400, { error: 'a pause names ms and why' });
          return;
        }
        const sentAt = typeof asked.rateLimitedSentAt === 'number' ? asked.rateLimitedSentAt : undefined;
        const request = {
          ms: asked.ms,
          why: asked.why,
          ...(sentAt === undefined ? {} : { rateLimitedSentAt: sentAt }),
        };
        reply(res, 200, { waited: await gate.pause(request) });
      });
    } else if (req.method === 'POST' && req.url === '/withdrawal')
      void bound.take().then(({ taken, limit }) => reply(res, 200, { taken, limit: limit ?? null }));
    else if (req.method === 'POST' && req.url === '/token/current')
      void desk.current().then((current) => reply(res, 200, { held: current ?? null }));
    else if (req.method === 'POST' && req.url === '/token/issued') {
      void readJson(req).then(async (body) => {
        const issued = body as Partial<HeldToken> | null;
        if (typeof issued?.token !== 'string' || typeof issued.issuedAt !== 'number') {
          reply(res, 400, { error: 'an issued token names token and issuedAt' });
          return;
        }
        await desk.issued({ token: issued.token, issuedAt: issued.issuedAt });
        reply(res, 200, {});
      });
    } else reply(res, 404, { error: 'no such route' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () =>
      new Promise((resolve) => {
        for (const release of held.values()) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a worker shares with the rest of the run: the gate, the token desk and the withdrawal bound. */
export interface RunShared {
  readonly gate: Gate;
  readonly desk: TokenDesk;
  readonly bound: WithdrawalBound;
}

/** The run's shared gate, token desk and withdrawal bound, as a worker uses them. */
export function remoteGate(url: string, token: string, settings: GateSettings, tell: Tell): RunShared {
  // Closed before global setup's server closes it: a call written into that close would fail the request.
  const agent = new Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
  const call = (path: string, body?: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const outgoing = request(`${url}${path}`, {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      outgoing.on('error', reject);
      outgoing.on('response', (res) => {
        void readJson(res).then((json) =>
          res.statusCode === 200
            ? resolve(json)
            : reject(new Error(`the run's request gate answered ${res.statusCode ?? '?'} to ${path}`)),
        );
      });
      outgoing.end(body === undefined ? undefined : JSON.stringify(body));
    });
  /** Runs `work` while holding what `path` grants, with the limits the run keeps now, and hands it back after. */
  const holding = async <T>(path: string, work: (now: GateSettings) => Promise<T>): Promise<T> => {
    const granted = (await call(path)) as { id: number; settings?: GateSettings; spent?: string };
    if (granted.spent !== undefined) throw new WaitBudgetSpent(granted.spent);
    const { id } = granted;
    try {
      return await work({ ...settings, ...granted.settings });
    } finally {
      await call(`/release/${id}`);
    }
  };
  const pause = async (asked: PauseRequest): Promise<boolean> =>
    ((await call('/pause', asked)) as { waited: boolean }).waited;
  // A holdingTokens section's own requests take the run's slots, its token requests not held by it.
  const ownRequests = sectionGate((send) => holding('/slot', () => send()), pause);
  return {
    gate: {
      run: (send, kind) => holding(kind === 'token' ? '/slot/token' : '/slot', () => send()),
      pause,
      // The run's gate holds every other worker; this worker's own requests keep the run's limits.
      exclusive: (section, burst) =>
        holding('/exclusive', (now) => {
          fits(burst, now);
          return section(localGate(now, tell, { together: true }));
        }),
      holdingTokens: (section) => holding('/holding-tokens', () => section(ownRequests)),
    },
    desk: {
      current: async () => ((await call('/token/current')) as { held: HeldToken | null }).held ?? undefined,
      issued: async (held) => {
        await call('/token/issued', held);
      },
    },
    bound: {
      take: async () => {
        const { taken, limit } = (await call('/withdrawal')) as { taken: boolean; limit: number | null };
        return { taken, limit: limit ?? undefined };
      },
    },
  };
}

/**
 * The gate, token desk and withdrawal bound of this process: the run's shared ones when global setup
 * serves them, else its own.
 */
export function gateOfThisRun(
  config: Config,
  shared: { url: string; token: string } | undefined,
  tell: Tell,
): RunShared {
  const settings = gateSettingsOf(config);
  return shared === undefined
    ? { gate: localGate(settings, tell), desk: localDesk(), bound: localBound(undefined) }
    : remoteGate(shared.url, shared.token, settings, tell);
}
