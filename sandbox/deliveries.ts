/**
 * Webhooks of namespaces: the ones an outcome plans, and those fired on demand (trigger). Every
 * attempt is journaled with the handler's answer and its time. undici's keep-alive Agent: what a
 * provider's delivery worker does, and at thousands a second half the CPU of node:http's client.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { endToEndMinute, isoNow } from './clock.ts';
import type { components } from './generated/simulator-control.ts';
import type { Namespace, Withdrawal } from './namespace.ts';
import {
  type PlannedWebhook,
  RETRY_DELAYS_SECONDS,
  type WebhookEvent,
  type WebhookKind,
} from './outcomes.ts';
import { httpUrl, isLoopback, signatureHeaders } from './webhook.ts';

/** Made up: the simulator is no institution with a real ISPB. */
const SIMULATOR_ISPB = '99999999';
/** A provider settles a payout after answering; the delay keeps a webhook due "now" behind the answer. */
const SETTLE_MS = 20;
const MAX_COPIES = 10;
const MAX_TRIGGER_DELAY_SECONDS = 60;

type Schemas = components['schemas'];
export type DeliveryError = Schemas['DeliveryError'];
export type Attempt = Schemas['Attempt'];

export interface TriggerRequest {
  readonly withdrawal: string;
  readonly status?: WebhookEvent;
  readonly copies?: number;
  readonly delaySeconds?: number;
  readonly malformed?: boolean;
  readonly extraFields?: boolean;
  readonly url?: string;
}

export interface DelivererOptions {
  readonly log: (line: string) => void;
  readonly timeoutMs: number;
  /** Host names besides loopback that webhooks may go to (PIX_SANDBOX_WEBHOOK_HOSTS). */
  readonly allowedHosts: readonly string[];
  /** How host names are resolved; default: the system's. */
  readonly lookup?: LookupFunction;
  /** Multiplies every delay (planned webhooks, retries, trigger delays). */
  readonly timeScale: number;
  /** A URL as the journal keeps it: secrets and user-info masked, then cut (Secrets.cut). */
  readonly shown: (text: string, max: number) => string;
}

/** A webhook's URL is journaled up to this many characters. */
const JOURNAL_URL_MAX = 1024;

interface Message {
  readonly webhookId: string;
  readonly body: string;
}

/** One attempt as the log and trigger print it: `webhook POST http://app:8080/pix -> 500 (312 ms) attempt 1/3`. */
export function attemptLine(attempt: Attempt): string {
  return `webhook POST ${attempt.url} -> ${attempt.error ?? String(attempt.status)} (${attempt.durationMs} ms) attempt ${attempt.attempt}/${attempt.of}`;
}

/**
 * E + ISPB + yyyyMMddHHmm (UTC) + 11 alphanumerics: the 32-character shape of a Pix end-to-end id. The
 * tail comes from randomUUID, whose entropy Node draws in batches, not a system call per webhook.
 */
function endToEndId(): string {
  const uuid = randomUUID();
  const tail = `${uuid.slice(0, 8)}${uuid.slice(9, 12)}`.toUpperCase();
  return `E${SIMULATOR_ISPB}${endToEndMinute()}${tail}`;
}

function messageOf(withdrawal: Withdrawal, event: WebhookEvent, kind: WebhookKind): Message {
  const payload = {
    event: `withdrawal.${event.toLowerCase()}`,
    id: withdrawal.id,
    code: withdrawal.code,
    status: event,
    amount: withdrawal.amount,
    end_to_end_id: endToEndId(),
    ...(kind === 'extra-fields'
      ? {
          fee: { amount: 0, currency: 'BRL' },
          metadata: { channel: 'api', batch: null },
          schema_version: '2.1',
        }
      : {}),
  };
  const body = JSON.stringify(payload);
  // Cut short mid-object: no JSON parser takes it.
  return {
    webhookId: `msg_${randomUUID().replaceAll('-', '')}`,
    body: kind === 'malformed' ? body.slice(0, Math.floor(body.length / 2)) : body,
  };
}

function errorOf(error: unknown): DeliveryError {
  const code = (error as NodeJS.ErrnoException).code;
  // Only the deliverer's clock aborts a request (send).
  if (code === 'UND_ERR_ABORTED') return 'timeout';
  if (code === 'ECONNREFUSED') return 'refused';
  // UND_ERR_SOCKET: the handler closed the connection before its answer ended.
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return 'reset';
  return 'unreachable';
}

/** A PostBackUrl's user:password as Basic credentials, as node:http sends them. */
function basicAuthOf(url: URL): Record<string, string> {
  if (url.username === '' && url.password === '') return {};
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

export class Deliverer {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly allowed: ReadonlySet<string>;
  private readonly agent: Agent;
  private closed = false;

  private readonly options: DelivererOptions;

  constructor(options: DelivererOptions) {
    this.options = options;
    this.allowed = new Set(options.allowedHosts.map((host) => host.toLowerCase()));
    // Its own timers stand down: the limit is the deliverer's one clock (send), exact to the millisecond.
    this.agent = new Agent({
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: {
        timeout: options.timeoutMs,
        ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
      },
    });
  }

  hostAllowed = (url: URL): boolean => isLoopback(url) || this.allowed.has(url.hostname.toLowerCase());

  /**
   * Posts the webhooks an outcome plans for a withdrawal, each at its time from now, journaled in its
   * namespace if it has one; a `retry` row is no delivery of its own: it lets the one before it be
   * sent again while the handler refuses it.
   */
  plan(
    namespace: Namespace | undefined,
    withdrawal: Withdrawal,
    webhooks: readonly PlannedWebhook[],
    fromArrival = false,
  ): void {
    const { url } = withdrawal;
    if (url === undefined) return;
    const retries = webhooks.some((w) => w.kind === 'retry');
    const start = performance.now();
    const sent = webhooks
      .filter((w) => w.kind !== 'retry')
      .map((webhook) => {
        const kind = webhook.kind ?? 'valid';
        const afterMs = webhook.afterSeconds * 1000 * this.options.timeScale + (fromArrival ? 0 : SETTLE_MS);
        return {
          webhook,
          kind,
          afterMs,
          due: namespace?.expect(withdrawal, { url, event: webhook.status, kind, attempt: 1 }, afterMs),
        };
      });
    const generation = namespace?.generation ?? 0;
    // A reset of the namespace since the withdrawal cancels what is still due.
    const current = (): boolean =>
      !this.closed && (namespace === undefined || namespace.generation === generation);
    // One after another: a webhook never overtakes the one planned before it, whatever the load.
    void (async () => {
      let previous: Message | undefined;
      for (const { webhook, kind, afterMs, due } of sent) {
        const message =
          kind === 'duplicate' && previous !== undefined
            ? previous
            : messageOf(withdrawal, webhook.status, kind);
        previous = message;
        const dueMs = start + afterMs - performance.now();
        if (dueMs > 0) await new Promise<void>((resolve) => this.later(dueMs, resolve));
        if (!current()) return;
        await this.deliver(
          namespace,
          generation,
          withdrawal,
          url,
          webhook.status,
          kind,
          message,
          retries,
          due,
        );
      }
    })();
  }

  /** Sends a withdrawal's webhook again as asked; resolves with every attempt once all are done. */
  async trigger(namespace: Namespace, withdrawal: Withdrawal, request: TriggerRequest): Promise<Attempt[]> {
    const url = request.url ?? withdrawal.url;
    if (url === undefined) return [];
    const generation = namespace.generation;
    const copies = Math.min(Math.max(1, Math.trunc(request.copies ?? 1)), MAX_COPIES);
    const delayMs =
      Math.min(Math.max(0, request.delaySeconds ?? 0), MAX_TRIGGER_DELAY_SECONDS) *
      1000 *
      this.options.timeScale;
    const event = request.status ?? 'PAID';
    const kind: WebhookKind =
      request.malformed === true ? 'malformed' : request.extraFields === true ? 'extra-fields' : 'valid';
    const first = namespace.expect(withdrawal, { url, event, kind, attempt: 1 }, delayMs);
    if (delayMs > 0) await new Promise<void>((resolve) => this.later(delayMs, resolve));
    const message = messageOf(withdrawal, event, kind);
    const attempts: Attempt[] = [];
    for (let copy = 0; copy < copies && !this.closed && namespace.generation === generation; copy++) {
      const due =
        copy === 0 ? first : namespace.expect(withdrawal, { url, event, kind: 'duplicate', attempt: 1 }, 0);
      attempts.push(
        ...(await this.deliver(
          namespace,
          generation,
          withdrawal,
          url,
          event,
          copy === 0 ? kind : 'duplicate',
          message,
          true,
          due,
        )),
      );
    }
    return attempts;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    // Requests still in flight end with an error, which their attempts record.
    this.agent.destroy().catch(() => undefined);
  }

  private later(ms: number, run: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  /**
   * One message, attempted again after an answer other than 2xx (or none) when `retries`; `due` is the
   * namespace's key of its first attempt, each retry expected in its turn.
   */
  private async deliver(
    namespace: Namespace | undefined,
    generation: number,
    withdrawal: Withdrawal,
    url: string,
    event: WebhookEvent,
    kind: WebhookKind,
    message: Message,
    retries: boolean,
    due: number | undefined,
  ): Promise<Attempt[]> {
    const of = retries ? RETRY_DELAYS_SECONDS.length + 1 : 1;
    const attempts: Attempt[] = [];
    let expected = due;
    const journaledUrl = this.options.shown(url, JOURNAL_URL_MAX);
    const current = (): boolean =>
      !this.closed && (namespace === undefined || namespace.generation === generation);
    for (let attempt = 1; attempt <= of && current(); attempt++) {
      const sentAt = isoNow();
      const result = await this.send(url, message);
      if (!current()) break;
      const { durationMs } = result;
      const answer = 'error' in result ? { status: null, error: result.error } : { status: result.status };
      namespace?.recordDelivery(
        generation,
        {
          withdrawalId: withdrawal.id,
          code: withdrawal.code === null ? null : this.options.shown(withdrawal.code, JOURNAL_URL_MAX),
          url: journaledUrl,
          event,
          kind: attempt === 1 ? kind : 'retry',
          webhookId: message.webhookId,
          attempt,
          of,
          sentAt,
          durationMs,
          answer,
        },
        expected,
      );
      const reported: Attempt = { url: journaledUrl, attempt, of, durationMs, ...answer };
      attempts.push(reported);
      this.options.log(attemptLine(reported));
      const delivered = 'status' in result && result.status >= 200 && result.status < 300;
      // No retry can reach a host not allowed, nor a URL that is no http(s) URL.
      if (delivered || 'unsendable' in result) break;
      const waitSeconds = RETRY_DELAYS_SECONDS[attempt - 1];
      if (attempt < of && waitSeconds !== undefined) {
        const waitMs = waitSeconds * 1000 * this.options.timeScale;
        expected = namespace?.expect(withdrawal, { url, event, kind: 'retry', attempt: attempt + 1 }, waitMs);
        await new Promise<void>((resolve) => this.later(waitMs, resolve));
      }
    }
    return attempts;
  }

  /** One POST; never throws. */
  private async send(
    target: string,
    message: Message,
  ): Promise<
    { status: number; durationMs: number } | { error: DeliveryError; durationMs: number; unsendable?: true }
  > {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    const url = httpUrl(target);
    if (url === undefined || !this.hostAllowed(url)) {
      return {
        error: url === undefined ? 'unreachable' : 'host-not-allowed',
        durationMs: 0,
        unsendable: true,
      };
    }
    // An EventEmitter as the abort signal: an AbortController per webhook costs undici half as much again.
    const abort = new EventEmitter();
    const timer = setTimeout(() => abort.emit('abort'), this.options.timeoutMs);
    try {
      const answer = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(message.body)),
          ...signatureHeaders(message.body, message.webhookId),
          ...basicAuthOf(url),
        },
        body: message.body,
        signal: abort,
      });
      // Its status is the answer, even if the body then breaks off.
      await answer.body.dump().catch(() => undefined);
      return { status: answer.statusCode, durationMs: elapsed() };
    } catch (error) {
      return { error: errorOf(error), durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }
}
