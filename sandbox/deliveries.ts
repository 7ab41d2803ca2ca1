/**
 * The one deliverer: every webhook of every namespace and scenario, shaped, signed, addressed and
 * retried as its behaviour says; those an outcome plans and those fired on demand (trigger). Every
 * attempt is journaled (where the namespace keeps a journal) with the handler's answer and its time.
 * undici's keep-alive Agent: what a provider's delivery worker does, and at thousands a second half
 * the CPU of node:http's client.
 */
import { EventEmitter } from 'node:events';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { Behaviour } from './behaviour.ts';
import { isoNow } from './clock.ts';
import type { components } from './generated/simulator-control.ts';
import type { Namespace } from './namespace.ts';
import {
  type PlannedWebhook,
  RETRY_DELAYS_SECONDS,
  type WebhookEvent,
  type WebhookKind,
  type Withdrawal,
} from './outcomes.ts';
import { httpUrl, isLoopback, type Message, messageOf, signatureHeaders, targetOf } from './webhook.ts';

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
  /** Multiplies every delay of the outcome table (planned webhooks, retries, trigger delays). */
  readonly timeScale: number;
  /** A URL as the journal keeps it: secrets and user-info masked, then cut (Secrets.cut). */
  readonly shown: (text: string, max: number) => string;
}

/** A webhook's URL is journaled up to this many characters. */
const JOURNAL_URL_MAX = 1024;

/** How often one message is attempted while the handler refuses it, and the wait before each attempt after the first. */
interface Retries {
  readonly of: number;
  readonly waitMs: (attempt: number) => number | undefined;
}

/** When a planned webhook is posted: a moment after the answer, at once before it, or timed from the request's arrival. */
export type Timing = 'after-answer' | 'before-answer' | 'from-arrival';

/** One attempt as the log and trigger print it: `webhook POST http://app:8080/pix -> 500 (312 ms) attempt 1/3`. */
export function attemptLine(attempt: Attempt, method = 'POST'): string {
  return `webhook ${method} ${attempt.url} -> ${attempt.error ?? String(attempt.status)} (${attempt.durationMs} ms) attempt ${attempt.attempt}/${attempt.of}`;
}

function errorOf(error: unknown): DeliveryError {
  const code = (error as NodeJS.ErrnoException).code;
  // Only the deliverer's clock aborts a request (send).
  if (code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return 'timeout';
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

/** The headers of one attempt under the behaviour: a GET carries no body, GET-declared-body only its length. */
function headersOf(message: Message, url: URL, behaviour: Behaviour): Record<string, string> {
  const { webhookMethod: method, webhookSigned: signed } = behaviour;
  const length = String(Buffer.byteLength(message.body));
  return {
    ...(method === 'POST' ? { 'content-type': message.contentType, 'content-length': length } : {}),
    ...(method === 'GET-declared-body' ? { 'content-length': length } : {}),
    ...(signed ? signatureHeaders(method === 'POST' ? message.body : '', message.webhookId) : {}),
    ...basicAuthOf(url),
  };
}

export class Deliverer {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly allowed: ReadonlySet<string>;
  private readonly agent: Agent;
  private readonly closing = new AbortController();
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
   * Posts the webhooks planned for a withdrawal, each at its time, shaped and addressed as the
   * namespace's behaviour says, each sent as many times as it copies them; a `retry` row is no delivery
   * of its own: it lets the one before it be sent again while the handler refuses it. Resolves when
   * every attempt is done (a provider that posts before it answers waits for it).
   */
  async plan(
    namespace: Namespace,
    withdrawal: Withdrawal,
    webhooks: readonly PlannedWebhook[],
    timing: Timing,
  ): Promise<void> {
    const { behaviour } = namespace;
    const parsed = withdrawal.url === undefined ? undefined : httpUrl(withdrawal.url);
    if (withdrawal.url === undefined || parsed === undefined || behaviour.webhookCopies === 0) return;
    const target = targetOf(withdrawal.url, parsed, behaviour.webhookTarget);
    const retries = this.retriesOf(
      behaviour,
      webhooks.some((w) => w.kind === 'retry'),
    );
    const start = performance.now();
    const settleMs = timing === 'after-answer' ? SETTLE_MS : 0;
    const sent = webhooks
      .filter((w) => w.kind !== 'retry')
      .map((webhook) => {
        const kind = webhook.kind ?? 'valid';
        const afterMs = webhook.afterSeconds * 1000 * this.options.timeScale + settleMs;
        const due = namespace.expect(
          withdrawal,
          { url: target, event: webhook.status, kind, attempt: 1 },
          afterMs,
        );
        return { webhook, kind, afterMs, due };
      });
    const { generation } = namespace;
    // One after another: a webhook never overtakes the one planned before it, whatever the load.
    let previous: Message | undefined;
    for (const { webhook, kind, afterMs, due } of sent) {
      const message =
        kind === 'duplicate' && previous !== undefined
          ? previous
          : messageOf(withdrawal, webhook.status, kind, behaviour);
      previous = message;
      const dueMs = start + afterMs - performance.now();
      if (dueMs > 0) await new Promise<void>((resolve) => this.later(dueMs, resolve));
      for (let copy = 0; copy < behaviour.webhookCopies; copy++) {
        // A reset of the namespace since the withdrawal cancels what is still due.
        if (this.closed || namespace.generation !== generation) return;
        const copyDue =
          copy === 0
            ? due
            : namespace.expect(
                withdrawal,
                { url: target, event: webhook.status, kind: 'duplicate', attempt: 1 },
                0,
              );
        const sending = { withdrawal, target, event: webhook.status, message };
        await this.deliver(namespace, generation, sending, copy === 0 ? kind : 'duplicate', retries, copyDue);
      }
    }
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
    const message = messageOf(withdrawal, event, kind, namespace.behaviour);
    const retries = this.retriesOf(namespace.behaviour, true);
    const attempts: Attempt[] = [];
    for (let copy = 0; copy < copies && !this.closed && namespace.generation === generation; copy++) {
      const due =
        copy === 0 ? first : namespace.expect(withdrawal, { url, event, kind: 'duplicate', attempt: 1 }, 0);
      const sending = { withdrawal, target: url, event, message };
      attempts.push(
        ...(await this.deliver(
          namespace,
          generation,
          sending,
          copy === 0 ? kind : 'duplicate',
          retries,
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
    this.closing.abort();
    // Requests still in flight end with an error, which their attempts record.
    this.agent.destroy().catch(() => undefined);
  }

  /** The outcome table's retries (1 s, then 2 s), or the behaviour's own; one attempt otherwise. */
  private retriesOf(behaviour: Behaviour, tableRetries: boolean): Retries {
    const own = behaviour.webhookRetry;
    if (own !== undefined) return { of: own.attempts, waitMs: () => own.delayMs };
    if (!tableRetries) return { of: 1, waitMs: () => undefined };
    return {
      of: RETRY_DELAYS_SECONDS.length + 1,
      waitMs: (attempt) => {
        const seconds = RETRY_DELAYS_SECONDS[attempt - 1];
        return seconds === undefined ? undefined : seconds * 1000 * this.options.timeScale;
      },
    };
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
   * One message, attempted again after an answer other than 2xx (or none) as `retries` allows; `due`
   * is the namespace's key of its first attempt, each retry expected in its turn.
   */
  private async deliver(
    namespace: Namespace,
    generation: number,
    sending: { withdrawal: Withdrawal; target: string; event: WebhookEvent; message: Message },
    kind: WebhookKind,
    retries: Retries,
    due: number | undefined,
  ): Promise<Attempt[]> {
    const { withdrawal, target, event, message } = sending;
    const { of } = retries;
    const method = namespace.behaviour.webhookMethod === 'POST' ? 'POST' : 'GET';
    const attempts: Attempt[] = [];
    let expected = due;
    const journaledUrl = this.options.shown(target, JOURNAL_URL_MAX);
    const current = (): boolean => !this.closed && namespace.generation === generation;
    for (let attempt = 1; attempt <= of && current(); attempt++) {
      const sentAt = isoNow();
      const beforeAnswer = withdrawal.answerPending === true;
      const result = await this.send(target, message, namespace.behaviour);
      if (!current()) break;
      const { durationMs } = result;
      const answer = 'error' in result ? { status: null, error: result.error } : { status: result.status };
      namespace.recordDelivery(
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
          beforeAnswer,
          durationMs,
          answer,
        },
        expected,
      );
      const reported: Attempt = { url: journaledUrl, attempt, of, durationMs, ...answer };
      attempts.push(reported);
      this.options.log(
        'error' in answer && answer.error === 'host-not-allowed'
          ? `webhook for ${withdrawal.id} not sent: ${new URL(target).hostname} is neither a loopback host nor named by PIX_SANDBOX_WEBHOOK_HOSTS`
          : attemptLine(reported, method),
      );
      const delivered = 'status' in result && result.status >= 200 && result.status < 300;
      // No retry can reach a host not allowed, nor a URL that is no http(s) URL.
      if (delivered || 'unsendable' in result) break;
      const waitMs = retries.waitMs(attempt);
      if (attempt < of && waitMs !== undefined) {
        this.options.log(`webhook ${method} ${journaledUrl}: sending it again in ${waitMs} ms`);
        expected = namespace.expect(
          withdrawal,
          { url: target, event, kind: 'retry', attempt: attempt + 1 },
          waitMs,
        );
        await new Promise<void>((resolve) => this.later(waitMs, resolve));
      }
    }
    return attempts;
  }

  /** One attempt, as the behaviour sends it; never throws. */
  private async send(
    target: string,
    message: Message,
    behaviour: Behaviour,
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
    const headers = headersOf(message, url, behaviour);
    try {
      if (behaviour.webhookMethod === 'GET-declared-body')
        return { status: await this.declareWithoutBody(url, headers), durationMs: elapsed() };
      return {
        status: await this.request(url, headers, behaviour.webhookMethod === 'POST' ? message.body : null),
        durationMs: elapsed(),
      };
    } catch (error) {
      return { error: errorOf(error), durationMs: elapsed() };
    }
  }

  /** One request through the keep-alive agent, bounded by the deliverer's clock. */
  private async request(url: URL, headers: Record<string, string>, body: string | null): Promise<number> {
    // An EventEmitter as the abort signal: an AbortController per webhook costs undici half as much again.
    const abort = new EventEmitter();
    const timer = setTimeout(() => abort.emit('abort'), this.options.timeoutMs);
    try {
      const answer = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: body === null ? 'GET' : 'POST',
        headers,
        body,
        signal: abort,
      });
      // Its status is the answer, even if the body then breaks off.
      await answer.body.dump().catch(() => undefined);
      return answer.statusCode;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * GET with a content-length whose body never comes (no client library sends that): the headers
   * only, then the connection waits for the answer, bounded by the time limit, and is closed.
   */
  private declareWithoutBody(url: URL, headers: Record<string, string>): Promise<number> {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(url, {
        method: 'GET',
        headers,
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.options.timeoutMs)]),
      });
      request.on('response', (response) => {
        response.resume();
        request.destroy();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.flushHeaders();
    });
  }
}
