/**
 * One gate for the whole run across Playwright's worker processes: global setup serves a local gate
 * on loopback (a random token guards it) and every worker asks it for a slot before each request
 * and hands the slot back after. A slot a worker never hands back (it died) is taken back after its
 * lease, so one crash cannot stall the run.
 */
import { randomBytes } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.ts';
import { gateSettingsOf, localGate, type Gate, type PauseRequest, type Tell } from './gate.ts';

export interface SharedGate {
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // A pause request is a few dozen bytes; anything larger is not ours.
      if (size <= 4_096) chunks.push(chunk);
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

/** Serves `gate` to the run's workers until closed; `leaseMs` bounds how long a slot is held. */
export async function serveGate(gate: Gate, leaseMs: number): Promise<SharedGate> {
  const token = randomBytes(24).toString('hex');
  const held = new Map<number, () => void>();
  let next = 0;
  const server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      reply(res, 403, { error: 'not this run' });
      return;
    }
    const released = /^\/release\/(\d+)$/.exec(req.url ?? '');
    if (req.method === 'POST' && req.url === '/slot') {
      const id = ++next;
      void gate.run(
        () =>
          new Promise<void>((release) => {
            // The worker went away while it was queued: it will never send, so the slot is free at once.
            if (res.destroyed) {
              release();
              return;
            }
            const lease = setTimeout(release, leaseMs);
            held.set(id, () => {
              clearTimeout(lease);
              release();
            });
            reply(res, 200, { id });
          }),
      );
    } else if (req.method === 'POST' && released !== null) {
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
        reply(res, 200, { waited: await gate.pause({ ms: asked.ms, why: asked.why }) });
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

/** The run's shared gate, as a worker uses it. */
export function remoteGate(url: string, token: string): Gate {
  const agent = new Agent({ keepAlive: true });
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
  return {
    run: async <T>(send: () => Promise<T>): Promise<T> => {
      const { id } = (await call('/slot')) as { id: number };
      try {
        return await send();
      } finally {
        await call(`/release/${id}`);
      }
    },
    pause: async (asked) => ((await call('/pause', asked)) as { waited: boolean }).waited,
  };
}

/** The gate of this process: the run's shared one when global setup serves it, else one of its own. */
export function gateOfThisRun(
  config: Config,
  shared: { url: string; token: string } | undefined,
  tell: Tell,
): Gate {
  return shared === undefined
    ? localGate(gateSettingsOf(config), tell)
    : remoteGate(shared.url, shared.token);
}
