/**
 * The receiver's control API, through which Playwright workers register addresses and wait for
 * deliveries. A separate server on loopback only, under a random secret prefix, so that neither the
 * provider nor anyone else who can reach the public receiver can list or create addresses.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, shutDown } from './listen.ts';
import type { DeliveryStore } from './store.ts';

/** A long poll never holds a worker (or a socket) longer than this, whatever it asked for. */
const MAX_WAIT_MS = 120_000;

export interface RunningControl {
  readonly controlUrl: string;
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A wait in ms from a query value, bounded by MAX_WAIT_MS; undefined when it is not a number ≥ 0. */
function boundedWait(text: string | null): number | undefined {
  const ms = Number(text ?? '0');
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_WAIT_MS) : undefined;
}

async function answerDeliveries(
  store: DeliveryStore,
  query: URLSearchParams,
  res: ServerResponse,
): Promise<void> {
  const address = query.get('path');
  if (address === null || !store.isRegistered(address)) {
    reply(res, 404, {
      error: `no registered address ${JSON.stringify(address)}; register one with POST /addresses first`,
    });
    return;
  }
  const timeoutMs = boundedWait(query.get('timeoutMs'));
  const graceMs = boundedWait(query.get('graceMs'));
  if (timeoutMs === undefined || graceMs === undefined) {
    reply(res, 400, { error: 'timeoutMs and graceMs must be numbers of milliseconds, at least 0' });
    return;
  }
  const deliveries = query.has('timeoutMs')
    ? await store.waitFor(address, { timeoutMs, graceMs })
    : store.deliveriesFor(address);
  reply(res, 200, { deliveries, strays: store.straysSince(address) });
}

export async function startControl(
  store: DeliveryStore,
  register: () => { path: string; url: string },
): Promise<RunningControl> {
  const secretPrefix = `/${randomBytes(16).toString('hex')}`;
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Split by hand: new URL() throws on request targets such as '//', which must get a 404 like any other.
    const [pathname = '', query = ''] = (req.url ?? '').split(/\?(.*)/s);
    if (req.method === 'POST' && pathname === `${secretPrefix}/addresses`) reply(res, 200, register());
    else if (req.method === 'GET' && pathname === `${secretPrefix}/deliveries`)
      await answerDeliveries(store, new URLSearchParams(query), res);
    else reply(res, 404, { error: 'not found' });
  };
  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      reply(res, 500, { error: String(error) });
    });
  });
  const boundUrl = await listen(server, '127.0.0.1', 0);
  return { controlUrl: `${boundUrl}${secretPrefix}`, close: () => shutDown(server) };
}
