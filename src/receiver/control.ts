/**
 * The receiver's control API, through which a suite run opens its run, registers addresses, waits
 * for deliveries and closes. It shares the receiver's port (one address to deploy behind TLS) under
 * '/_receiver/v1/', after any prefix a proxy keeps, and answers only with the receiver's token
 * (`authorization: Bearer <token>`, compared in constant time). A run is reached only through its
 * unguessable key, and every route below it sees only that run's addresses: a run never lists
 * another's deliveries or strays.
 *
 *   GET    /_receiver/v1/health                              200 { receiver, api, tls, clientCertificates }
 *   POST   /_receiver/v1/runs?base=<public base URL>         201 { run }
 *   POST   /_receiver/v1/runs/<run>/addresses                201 { path, url }
 *          ?whole=1                                          its url ends in a path, a query and a %-escape, matched whole
 *          ?refuseFirst=<5xx>                                201 { path, url, refuseFirst }: the address answers
 *                                                            its first complete POST with that status (retry probe)
 *   GET    /_receiver/v1/runs/<run>/addresses/<hex>          200 AddressReport (see store.ts)
 *          ?timeoutMs=&graceMs=                              long poll: up to 120 s, then up to 10 s of grace
 *          &until=attempt                                    ends at the first request of any outcome, not the
 *                                                            first delivery answered 2xx
 *   DELETE /_receiver/v1/runs/<run>                          204: the run and all it received are forgotten
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StoreRefusal, type AddressOptions, type ReceiverStore, type WaitUntil } from './store.ts';

export const CONTROL_MARKER = '/_receiver/v1';
/** A token shorter than this could be guessed or is a placeholder: the receiver refuses to start with one. */
export const MIN_TOKEN_LENGTH = 32;
/** A long poll never holds a socket longer than this, whatever it asked for. */
export const MAX_WAIT_MS = 120_000;
export const MAX_GRACE_MS = 10_000;
/** Long polls held at once, over all runs; one more is answered 503. */
const MAX_PENDING_WAITS = 1_000;
const MAX_BASE_LENGTH = 2_000;

export interface ControlInfo {
  readonly tls: boolean;
  readonly clientCertificates: 'off' | 'requested' | 'required';
}

/** The route after the control marker, or undefined when the path is not the control API's. */
export function controlRoute(path: string): string | undefined {
  const at = path.indexOf(`${CONTROL_MARKER}/`);
  return at === -1 ? undefined : path.slice(at + CONTROL_MARKER.length);
}

class Refusal extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * Serialised before the status line goes out, so that a body that cannot be serialised still gets
 * a proper 500 instead of a second writeHead (ERR_HTTP_HEADERS_SENT, which used to end the run).
 */
function reply(
  res: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const text = body === undefined ? '' : JSON.stringify(body);
  res
    .writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers })
    .end(text);
}

/** A number of milliseconds from a query value, capped; 0 when absent. */
function milliseconds(query: URLSearchParams, name: string, max: number): number {
  const text = query.get(name) ?? '0';
  const ms = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new Refusal(400, `${name} must be a whole number of milliseconds`);
  return Math.min(ms, max);
}

/** The retry probe's status for an address's first delivery: a 5xx, which a provider may take as temporary. */
function addressOptionsOf(query: URLSearchParams): AddressOptions {
  const whole = query.get('whole') === '1' ? { whole: true } : {};
  const refuseFirst = query.get('refuseFirst');
  if (refuseFirst === null) return whole;
  if (!/^5\d\d$/.test(refuseFirst)) throw new Refusal(400, 'refuseFirst must be a 5xx status, e.g. 503');
  return { ...whole, refuseFirst: Number(refuseFirst) };
}

function untilOf(query: URLSearchParams): WaitUntil {
  const until = query.get('until') ?? 'delivery';
  if (until !== 'delivery' && until !== 'attempt')
    throw new Refusal(400, 'until must be delivery (the default) or attempt');
  return until;
}

function publicBaseOf(query: URLSearchParams): string {
  const base = query.get('base') ?? '';
  const url = base.length <= MAX_BASE_LENGTH && URL.canParse(base) ? new URL(base) : undefined;
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '')
    throw new Refusal(400, 'base must be the http(s) address the provider posts to, without query');
  return url.href.replace(/\/+$/, '');
}

export function createControl(
  store: ReceiverStore,
  token: string,
  info: ControlInfo,
): (req: IncomingMessage, res: ServerResponse, route: string, query: URLSearchParams) => void {
  const expected = createHash('sha256').update(token).digest();
  let pendingWaits = 0;

  const authorized = (req: IncomingMessage): boolean => {
    const [scheme, presented] = (req.headers.authorization ?? '').split(' ', 2);
    // Digests have one length whatever was presented, so the comparison takes the same time for all.
    const digest = createHash('sha256')
      .update(presented ?? '')
      .digest();
    return scheme === 'Bearer' && timingSafeEqual(digest, expected);
  };

  const deliveries = async (
    run: string,
    path: string,
    query: URLSearchParams,
    res: ServerResponse,
  ): Promise<void> => {
    const timeoutMs = milliseconds(query, 'timeoutMs', MAX_WAIT_MS);
    const graceMs = milliseconds(query, 'graceMs', MAX_GRACE_MS);
    const until = untilOf(query);
    store.report(run, path);
    if (timeoutMs > 0) {
      if (pendingWaits >= MAX_PENDING_WAITS) throw new Refusal(503, 'too many waits at once; try again');
      pendingWaits++;
      // A client that gives up (or a restart of it) ends its wait instead of holding a timer.
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      await store
        .waitFor(run, path, { timeoutMs, graceMs, until, signal: gone.signal })
        .finally(() => pendingWaits--);
    }
    reply(res, 200, store.report(run, path));
  };

  const route = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<void> => {
    const [, first, run = '', third, address = '', ...rest] = path.split('/');
    const method = req.method ?? '';
    if (method === 'GET' && path === '/health') {
      reply(res, 200, { receiver: 'pix-webhook-receiver', api: 1, ...info });
    } else if (method === 'POST' && path === '/runs') {
      reply(res, 201, { run: (await store.openRun(publicBaseOf(query))).key });
    } else if (first === 'runs' && third === 'addresses' && rest.length === 0) {
      if (method === 'POST' && address === '')
        reply(res, 201, await store.register(run, addressOptionsOf(query)));
      else if (method === 'GET' && address !== '') await deliveries(run, `/${address}`, query, res);
      else throw new Refusal(405, `${method} is not a method of ${CONTROL_MARKER}${path}`);
    } else if (method === 'DELETE' && first === 'runs' && third === undefined) {
      await store.closeRun(run);
      reply(res, 204);
    } else throw new Refusal(404, `no route ${method} ${CONTROL_MARKER}${path}`);
  };

  return (req, res, path, query) => {
    // Control requests carry no body: whatever comes is read and dropped, so the connection stays usable.
    req.resume();
    if (!authorized(req)) {
      reply(
        res,
        401,
        { error: 'the receiver token is missing or wrong' },
        {
          'www-authenticate': 'Bearer realm="pix-webhook-receiver"',
        },
      );
      return;
    }
    route(req, res, path, query).catch((error: unknown) => {
      const known = error instanceof Refusal || error instanceof StoreRefusal;
      try {
        reply(res, known ? error.status : 500, {
          error: known ? error.message : `receiver error: ${String(error)}`,
        });
      } catch {
        res.destroy();
      }
    });
  };
}
