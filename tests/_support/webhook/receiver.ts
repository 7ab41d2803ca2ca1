/**
 * The webhook receiver (§4.2, §6): a real HTTP server the provider posts to, started once per run in
 * Playwright's main process. Each withdrawal gets an unguessable address of its own; a delivery
 * counts for it only when it comes to exactly that path. Whatever arrives is recorded and answered,
 * and nothing a sender does (malformed, oversized, aborted, slow, a burst) stops the server.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { redact, redactHeaders } from '../redact.ts';
import { startControl } from './control.ts';
import { listen, shutDown } from './listen.ts';
import { DeliveryStore, type Arrival, type Delivery } from './store.ts';

export type { Delivery } from './store.ts';

export interface ReceiverOptions {
  readonly host: string;
  /** 0 for an ephemeral port. */
  readonly port: number;
  /** The base address the provider can reach (a tunnel, a public host); default the bound address. */
  readonly publicUrl?: string;
  /** Default 1 MiB. */
  readonly maxBodyBytes?: number;
}

export interface WebhookAddress {
  /** '/' and 32 hex characters: 128 random bits, so no one posts to it by guessing. */
  readonly path: string;
  /** What goes into PostBackUrl: the public base and the path. */
  readonly url: string;
}

export interface RunningReceiver {
  /** e.g. http://127.0.0.1:41234 */
  readonly boundUrl: string;
  /** publicUrl or boundUrl, without a trailing slash. */
  readonly publicBase: string;
  /** The loopback control API for workers, secret prefix included (see control.ts). */
  readonly controlUrl: string;
  register(): WebhookAddress;
  deliveriesFor(path: string): Delivery[];
  /** Deliveries to paths never registered, whatever their method or outcome. */
  strays(): Delivery[];
  all(): Delivery[];
  waitFor(path: string, opts: { timeoutMs: number; graceMs: number }): Promise<Delivery[]>;
  /** Stops both servers and cuts every connection; resolves when nothing listens. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const KEPT_BODY_BYTES = 64 * 1024;
/** Bounded so that a slow or stalled sender cannot hold a connection for the whole run. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Short, so idle provider connections do not pile up; long enough to serve a burst over few sockets. */
const KEEP_ALIVE_TIMEOUT_MS = 2_000;

function flatHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : (value ?? ''),
    ]),
  );
}

function answer(res: ServerResponse, status: number, body: object, closeAfter = false): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(closeAfter ? { connection: 'close' } : {}),
  });
  // Cutting the connection is how the rest of an oversized body is left unread.
  res.end(JSON.stringify(body), closeAfter ? () => res.socket?.destroy() : undefined);
}

/**
 * Malformed HTTP never reaches a request handler: it is answered 400 and kept as a stray with method
 * '?', since a provider that sends garbage (or TLS to a plain-HTTP address) should show up in the
 * report. A parse error inside a request already under way is left to that request, which records
 * it as aborted; a sender hanging up early is not malformed and gets no answer.
 */
function refuseBrokenClient(store: DeliveryStore, requestUnderWay: (socket: Duplex) => boolean) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    const code = error.code ?? '';
    const malformed = code.startsWith('HPE_') && code !== 'HPE_INVALID_EOF_STATE';
    const status = malformed
      ? '400 Bad Request'
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : undefined;
    if (malformed && !requestUnderWay(socket)) {
      const arrival: Arrival = {
        path: '?',
        method: '?',
        headers: {},
        body: '',
        bodyBytes: 0,
        truncated: false,
        receivedAt: Date.now(),
        answeredStatus: 400,
        outcome: 'stray',
      };
      store.record(arrival, undefined);
    }
    if (status === undefined || !socket.writable) socket.destroy();
    else
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`, () =>
        socket.destroy(),
      );
  };
}

export async function startReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const store = new DeliveryStore();
  /** Sockets whose current request is not recorded yet. */
  const underWay = new WeakSet<object>();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const publicPrefix =
    options.publicUrl === undefined ? '' : new URL(options.publicUrl).pathname.replace(/\/+$/, '');

  /**
   * The registered address a received path belongs to. A tunnel behind a publicUrl with a path may
   * forward that prefix unchanged, so '/prefix/<address>' counts as well as '/<address>'.
   */
  const addressOf = (path: string): string | undefined => {
    if (store.isRegistered(path)) return path;
    const unprefixed =
      publicPrefix !== '' && path.startsWith(`${publicPrefix}/`) ? path.slice(publicPrefix.length) : '';
    return store.isRegistered(unprefixed) ? unprefixed : undefined;
  };

  const receive = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '').split('?', 1)[0] ?? '';
    const address = addressOf(path);
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bodyBytes = 0;
    let recorded = false;
    underWay.add(req.socket);
    const record = (outcome: Delivery['outcome'], answeredStatus: number | null): void => {
      recorded = true;
      underWay.delete(req.socket);
      const body = redact(Buffer.concat(kept).toString('utf8'));
      const headers = redactHeaders(flatHeaders(req));
      store.record(
        {
          path,
          method: req.method ?? '?',
          headers,
          body,
          bodyBytes,
          truncated: bodyBytes > keptBytes,
          receivedAt: Date.now(),
          answeredStatus,
          outcome,
        },
        address,
      );
    };

    req.on('data', (chunk: Buffer) => {
      if (recorded) return;
      bodyBytes += chunk.length;
      if (keptBytes < KEPT_BODY_BYTES) {
        const part = chunk.subarray(0, KEPT_BODY_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      if (bodyBytes > maxBodyBytes) {
        record('too-large', 413);
        answer(res, 413, { received: false, error: `body over ${maxBodyBytes} bytes` }, true);
      }
    });
    req.on('end', () => {
      if (recorded) return;
      // Recorded before answering, so that whoever sees our answer also sees the delivery stored.
      record(address === undefined ? 'stray' : 'matched', address === undefined ? 404 : 200);
      if (address === undefined) answer(res, 404, { received: false, error: 'unknown address' });
      else answer(res, 200, { received: true });
    });
    // A sender that goes away mid-body surfaces here as 'aborted'; its 'close' below records it.
    req.on('error', () => {});
    req.on('close', () => {
      if (!recorded) record('aborted', null);
    });
  };

  const server = createServer(
    {
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: 1_000,
    },
    receive,
  );
  server.on(
    'clientError',
    refuseBrokenClient(store, (socket) => underWay.has(socket)),
  );

  const boundUrl = await listen(server, options.host, options.port).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The webhook receiver could not listen on ${options.host}:${options.port} (${reason}). Set PIX_WEBHOOK_PORT to a free port (or 0 for any) and PIX_WEBHOOK_HOST to an address of this machine.`,
      { cause: error },
    );
  });
  // After listening, a server error (e.g. out of file descriptors under a flood) must not end the run.
  server.on('error', (error) => {
    console.error(`webhook receiver: ${error.message}`);
  });
  const publicBase = (options.publicUrl ?? boundUrl).replace(/\/+$/, '');

  const register = (): WebhookAddress => {
    const path = `/${randomBytes(16).toString('hex')}`;
    store.register(path);
    return { path, url: `${publicBase}${path}` };
  };
  const control = await startControl(store, register).catch(async (error: unknown) => {
    await shutDown(server);
    throw error;
  });

  return {
    boundUrl,
    publicBase,
    controlUrl: control.controlUrl,
    register,
    deliveriesFor: (path) => store.deliveriesFor(path),
    strays: () => store.strays(),
    all: () => store.all(),
    waitFor: (path, opts) => store.waitFor(path, opts),
    close: async () => {
      store.close();
      await Promise.all([shutDown(server), control.close()]);
    },
  };
}
