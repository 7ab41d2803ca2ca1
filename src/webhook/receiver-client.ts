/**
 * The suite's side of the receiver's control API (control.ts), the same for the suite's own receiver
 * and a remote one: workers register addresses and wait for deliveries through WebhookClient; global
 * setup and preflight open, check and close the run through ReceiverConnection.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { readBody } from '../transport/http.ts';
import { excerpt, redactHeaders, redactJson } from '../secrets/redact.ts';
import { secureContextOf, type TlsSettings } from '../transport/tls.ts';
import { CONTROL_MARKER } from '../receiver/control.ts';
import { isDelivered, type Delivery, type StrayReport } from '../evidence/delivery.ts';
import type { AddressReport, WaitUntil } from '../receiver/store.ts';
import { registerSecret } from '../secrets/registry.ts';
import { suiteCommand } from '../base/invocation.ts';

export interface WebhookAddress {
  /** '/' and 32 hex characters: 128 random bits, so no one posts to it by guessing. */
  readonly path: string;
  /** What goes into PostBackUrl: the public base and the path. */
  readonly url: string;
}

export interface DeliveryReport {
  /** Deliveries: complete requests to the address that the receiver answered 2xx, in arrival order. */
  readonly deliveries: Delivery[];
  /** Requests to the address that are no delivery (cut, too large, malformed, refused): observations. */
  readonly incomplete: Delivery[];
  /** Requests to the address beyond the listed ones (a provider that keeps posting). */
  readonly unlisted: number;
  /** Requests to other paths since the address was registered: where the webhook may have gone instead. */
  readonly strays: StrayReport;
}

/** Allowance for the round trip to the control API, on top of any wait the receiver does. */
const ROUND_TRIP_MS = 5_000;
/** The control API lists a bounded number of deliveries of at most 64 KiB each: far below this. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** A poll that meets a receiver restarting tries again until its own deadline, this often. */
const RETRY_PAUSE_MS = 250;

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.includes(code) ? message : `${code}: ${message}`;
}

/** A control request that got no answer at all (as opposed to an answer with an error status). */
export class NoAnswer extends Error {
  override readonly name = 'NoAnswer';
}

export class ControlAnswer extends Error {
  override readonly name = 'ControlAnswer';
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * A client's own connections to the control API, kept alive between calls and shared with no one;
 * https verified against the default trust plus PIX_CA_FILE.
 */
class ControlAgents {
  readonly #http = new HttpAgent({ keepAlive: true });
  readonly #https: HttpsAgent;

  constructor(tls: TlsSettings) {
    const context = secureContextOf(tls);
    this.#https = new HttpsAgent({
      keepAlive: true,
      ...(context === undefined ? {} : { secureContext: context }),
    });
  }

  for(url: URL): HttpAgent {
    return url.protocol === 'https:' ? this.#https : this.#http;
  }
}

/** One exchange with the control API, bounded in time and size. */
function exchange(
  url: URL,
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  timeoutMs: number,
  agents: ControlAgents,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, {
      method,
      headers: { authorization: `Bearer ${token}` },
      agent: agents.for(url),
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const settle =
      <T>(outcome: (value: T) => void) =>
      (value: T) => {
        clearTimeout(timer);
        outcome(value);
      };
    request.on('error', settle(reject));
    request.on('response', (response) => {
      readBody(response, MAX_ANSWER_BYTES).then(
        settle((body: Buffer) => resolve({ status: response.statusCode ?? 0, text: body.toString('utf8') })),
        settle(reject),
      );
    });
    request.end();
  });
}

/**
 * One control request. The route (never the token, never a query) goes into errors; network
 * failures become NoAnswer, error statuses ControlAnswer.
 */
async function call<T>(
  url: string,
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  timeoutMs: number,
  agents: ControlAgents,
): Promise<T> {
  const target = new URL(url);
  const where = `${method} ${target.pathname}`;
  let status: number;
  let text: string;
  try {
    ({ status, text } = await exchange(target, token, method, timeoutMs, agents));
  } catch (error) {
    throw new NoAnswer(`${where}: ${reasonOf(error)}`, { cause: error });
  }
  // A redirect is not followed: the token would go wherever it points.
  if (status < 200 || status > 299)
    throw new ControlAnswer(status, `${where} answered ${status}: ${errorOf(text)}`);
  try {
    return (text === '' ? undefined : JSON.parse(text)) as T;
  } catch {
    throw new ControlAnswer(status, `${where} answered ${status} with a body that is not JSON`);
  }
}

/** The receiver's `{ "error": … }`, or the start of whatever else answered (a proxy's page). */
function errorOf(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: unknown };
    if (typeof error === 'string') return error;
  } catch {
    // Not the receiver's JSON: show what it is.
  }
  return excerpt(text, 200, () => '');
}

/** Splits what arrived at an address into deliveries and the rest, with the suite's secrets masked. */
function toReport(answer: AddressReport): DeliveryReport {
  const masked = redactJson({
    ...answer,
    deliveries: answer.deliveries.map((d) => ({ ...d, headers: redactHeaders(d.headers) })),
  });
  return {
    deliveries: masked.deliveries.filter(isDelivered),
    incomplete: masked.deliveries.filter((d) => !isDelivered(d)),
    unlisted: masked.unlistedDeliveries,
    strays: masked.strays,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class WebhookClient {
  readonly #runUrl: string;
  readonly #token: string;
  readonly #agents: ControlAgents;

  /**
   * `runUrl`: the run's control address, …/_receiver/v1/runs/<run>, as global setup opened it; `tls`:
   * the trust for a remote receiver's https (PIX_CA_FILE).
   */
  constructor(runUrl: string, token: string, tls: TlsSettings = {}) {
    registerSecret(token);
    this.#runUrl = runUrl.replace(/\/+$/, '');
    this.#token = token;
    this.#agents = new ControlAgents(tls);
  }

  /**
   * A new address. With `refuseFirst` (a 5xx), the receiver answers the first complete POST to it with
   * that status, to see whether the provider sends it again; a receiver too old to do so is an error,
   * never a probe that silently refused nothing. `whole` asks for a URL with a path, a query and a
   * percent-encoded character after the key, matched whole (a receiver too old for it hands out the bare key).
   */
  register(options: { refuseFirst?: number; whole?: boolean } = {}): Promise<WebhookAddress> {
    const { refuseFirst, whole = false } = options;
    const params = new URLSearchParams({
      ...(whole ? { whole: '1' } : {}),
      ...(refuseFirst === undefined ? {} : { refuseFirst: String(refuseFirst) }),
    }).toString();
    const query = params === '' ? '' : `?${params}`;
    return this.#call(async () => {
      const address = await call<WebhookAddress & { refuseFirst?: unknown }>(
        `${this.#runUrl}/addresses${query}`,
        this.#token,
        'POST',
        ROUND_TRIP_MS,
        this.#agents,
      );
      if (refuseFirst !== undefined && address.refuseFirst !== refuseFirst)
        throw new ControlAnswer(
          201,
          'the receiver does not refuse a first delivery (refuseFirst), which the retry probe (PIX_WEBHOOK_RETRY_WAIT_S) needs: update it',
        );
      return { path: address.path, url: address.url };
    });
  }

  /**
   * Waits for the first delivery and `graceMs` more (for duplicates); after `timeoutMs` without one,
   * answers with whatever else arrived. With `until: 'attempt'` the first request to the address of any
   * outcome ends the wait (a refused one too).
   */
  waitFor(
    path: string,
    { timeoutMs, graceMs, until }: { timeoutMs: number; graceMs: number; until?: WaitUntil },
  ): Promise<DeliveryReport> {
    return this.#poll(path, timeoutMs, graceMs, until);
  }

  /** What arrived so far, without waiting. */
  snapshot(path: string): Promise<DeliveryReport> {
    return this.#poll(path, 0, 0);
  }

  /** Polls are reads: one that meets a receiver restarting is asked again until its deadline. */
  async #poll(
    path: string,
    timeoutMs: number,
    graceMs: number,
    until: WaitUntil = 'delivery',
  ): Promise<DeliveryReport> {
    const deadline = Date.now() + timeoutMs + graceMs + ROUND_TRIP_MS;
    const addressUrl = `${this.#runUrl}/addresses/${path.replace(/^\//, '')}`;
    for (;;) {
      const wait = Math.max(0, Math.min(timeoutMs, deadline - ROUND_TRIP_MS - graceMs - Date.now()));
      const query = new URLSearchParams({
        timeoutMs: String(wait),
        graceMs: String(graceMs),
        ...(until === 'delivery' ? {} : { until }),
      });
      try {
        const answer = await call<AddressReport>(
          `${addressUrl}?${query.toString()}`,
          this.#token,
          'GET',
          Math.max(1, deadline - Date.now()),
          this.#agents,
        );
        return toReport(answer);
      } catch (error) {
        if (!(error instanceof NoAnswer) || Date.now() + RETRY_PAUSE_MS >= deadline) return this.#fail(error);
        await sleep(RETRY_PAUSE_MS);
      }
    }
  }

  /**
   * A registration that met a reset connection is made once more: a kept-alive connection the receiver
   * closed as it was reused (more likely on a loaded machine) never carried the request, and were it
   * otherwise, an address registered twice is only an address nobody posts to.
   */
  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request().catch((error: unknown) => {
        if (!(
          error instanceof NoAnswer &&
          (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET'
        ))
          throw error;
        return request();
      });
    } catch (error) {
      return this.#fail(error);
    }
  }

  #fail(error: unknown): never {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The webhook receiver's control API failed: ${reason}. Global setup opens the run and passes it to workers in PIX_WEBHOOK_CONTROL_URL; run the suite through ${suiteCommand('certify')} or npx playwright test.`,
      { cause: error },
    );
  }
}

export interface ReceiverHealth {
  readonly receiver: string;
  readonly api: number;
  readonly tls: boolean;
  readonly clientCertificates: 'off' | 'requested' | 'required';
}

/** The receiver as a whole: is it there, does it take the token; opening and closing runs. */
export class ReceiverConnection {
  readonly #base: string;
  readonly #token: string;
  readonly #agents: ControlAgents;

  /** `baseUrl`: the receiver's base address (a proxy's path prefix included); `tls`: as WebhookClient's. */
  constructor(baseUrl: string, token: string, tls: TlsSettings = {}) {
    registerSecret(token);
    this.#base = `${baseUrl.replace(/\/+$/, '')}${CONTROL_MARKER}`;
    this.#token = token;
    this.#agents = new ControlAgents(tls);
  }

  async health(timeoutMs = ROUND_TRIP_MS): Promise<ReceiverHealth> {
    const health = await call<Partial<ReceiverHealth> | undefined>(
      `${this.#base}/health`,
      this.#token,
      'GET',
      timeoutMs,
      this.#agents,
    );
    if (health?.receiver !== 'pix-webhook-receiver')
      throw new ControlAnswer(200, 'the answer to its health check is not a pix webhook receiver’s');
    return health as ReceiverHealth;
  }

  /** Opens a run whose addresses go under `publicBase`; resolves with the run's control address. */
  async openRun(publicBase: string): Promise<string> {
    const query = new URLSearchParams({ base: publicBase });
    const { run } = await call<{ run: string }>(
      `${this.#base}/runs?${query.toString()}`,
      this.#token,
      'POST',
      ROUND_TRIP_MS,
      this.#agents,
    );
    return `${this.#base}/runs/${run}`;
  }

  /** Unregisters the run's addresses; the receiver forgets all it received for them. */
  async closeRun(runUrl: string): Promise<void> {
    await call(runUrl, this.#token, 'DELETE', ROUND_TRIP_MS, this.#agents);
  }
}
