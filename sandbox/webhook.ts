/**
 * The webhook posted to PostBackUrl after a withdrawal (§4.2, §6). The document leaves its shape and
 * signing open; the reference payload follows what payout providers send (docs/pix-domain.md) and is
 * signed the Standard Webhooks way. Deliveries go to this machine, and to the hosts PIX_SANDBOX_WEBHOOK_HOSTS names.
 */
import { createHmac, createSecretKey } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIPv4 } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Behaviour } from './behaviour.ts';
import { endToEndMinute } from './clock.ts';
import type { Invented } from './invented.ts';

/** Standard Webhooks secret: the HMAC key is the base64 text after the prefix. */
export const WEBHOOK_SIGNING_SECRET = 'whsec_cGl4LXNhbmRib3gtd2ViaG9vay1zaWduaW5nLWtleSE=';
// A KeyObject: Node 24 checks a Buffer key on every createHmac, six times the cost of the HMAC itself.
const SIGNING_KEY = createSecretKey(Buffer.from(WEBHOOK_SIGNING_SECRET.slice('whsec_'.length), 'base64'));

/** A provider settles a payout after answering; the delay keeps the webhook behind the response. */
const DELAY_MS = 20;
/** The default time a webhook handler has to answer (PIX_SANDBOX_WEBHOOK_TIMEOUT_MS). */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Made up: the sandbox is no institution with a real ISPB. */
const SANDBOX_ISPB = '99999999';

export interface WebhookNotice {
  /** PostBackUrl as the withdrawal gave it. */
  readonly url: string;
  readonly id: string;
  readonly code: string | null;
  readonly amount: unknown;
  /** The statuses to post, when not the behaviour's (a refused withdrawal's REJECTED). */
  readonly statuses?: readonly string[];
}

export function httpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** URL normalises 127.1, 0x7f.0.0.1 and the like to dotted decimal, so this sees the real address. */
export function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || (isIPv4(host) && host.startsWith('127.'));
}

/** E + ISPB + yyyyMMddHHmm (UTC) + 11 alphanumerics: the 32-character shape of a Pix end-to-end id. */
function endToEndId(invented: Invented): string {
  return `E${SANDBOX_ISPB}${endToEndMinute()}${invented.endToEndTail()}`;
}

/** A valid JSON array of about `bytes` bytes: the history a verbose provider attaches to a webhook. */
function padding(bytes: number): { history?: { seq: number; note: string }[] } {
  if (bytes <= 0) return {};
  const note = 'x'.repeat(100);
  return { history: Array.from({ length: Math.ceil(bytes / 125) }, (_, seq) => ({ seq, note })) };
}

function payloadOf(
  notice: WebhookNotice,
  behaviour: Behaviour,
  invented: Invented,
  status: string,
): { contentType: string; body: string } {
  switch (behaviour.webhookPayload) {
    case 'reference':
      return {
        contentType: 'application/json',
        body: JSON.stringify({
          event: `withdrawal.${status.toLowerCase()}`,
          id: notice.id,
          code: notice.code,
          status,
          amount:
            behaviour.webhookAmount === 'other' && typeof notice.amount === 'number'
              ? notice.amount + 1
              : notice.amount,
          end_to_end_id: endToEndId(invented),
          ...padding(behaviour.webhookPaddingBytes),
        }),
      };
    case 'lenient':
      return {
        contentType: 'application/json',
        body: JSON.stringify({
          type: 'payout.updated',
          data: { transaction_id: notice.id, code: notice.code, status: 'sucesso' },
        }),
      };
    case 'anonymous':
      return {
        contentType: 'application/json',
        body: JSON.stringify({ event: 'withdrawal.paid', status: 'PAID' }),
      };
    case 'text':
      return { contentType: 'text/plain', body: 'status=PAID' };
  }
}

export function signatureHeaders(body: string, id: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', SIGNING_KEY).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

interface Delivery {
  readonly target: string;
  readonly method: Behaviour['webhookMethod'];
  readonly headers: Record<string, string>;
  readonly body: string | null;
}

/** Where a provider with this behaviour posts the webhook of a withdrawal whose PostBackUrl is `url`. */
function targetOf(url: URL, target: Behaviour['webhookTarget']): string {
  switch (target) {
    case 'exact':
      return url.href;
    case 'origin-webhook':
      return `${url.origin}/webhook`;
    case 'without-query':
      return `${url.origin}${url.pathname}`;
    case 'decoded-query':
      return `${url.origin}${url.pathname}${decodeURIComponent(url.search)}`;
    case 'lower-case-path':
      return `${url.origin}${url.pathname.toLowerCase()}${url.search}`;
  }
}

function deliveryOf(
  notice: WebhookNotice,
  url: URL,
  behaviour: Behaviour,
  invented: Invented,
  status: string,
): Delivery {
  const payload = payloadOf(notice, behaviour, invented, status);
  const body = behaviour.webhookMethod === 'POST' ? payload.body : null;
  return {
    target: targetOf(url, behaviour.webhookTarget),
    method: behaviour.webhookMethod,
    headers: {
      ...(body === null ? {} : { 'content-type': payload.contentType }),
      ...(behaviour.webhookMethod === 'GET-declared-body'
        ? { 'content-length': String(Buffer.byteLength(payload.body)) }
        : {}),
      ...(behaviour.webhookSigned ? signatureHeaders(body ?? '', invented.messageId()) : {}),
    },
    body,
  };
}

/** fetch reports 'fetch failed' and keeps the useful part (ECONNREFUSED, ...) in the cause. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}

export class WebhookSender {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly closing = new AbortController();

  private readonly log: (line: string) => void;
  private readonly invented: Invented;
  private readonly timeoutMs: number;
  private readonly hostAllowed: (url: URL) => boolean;

  constructor(
    log: (line: string) => void,
    invented: Invented,
    timeoutMs = WEBHOOK_TIMEOUT_MS,
    hostAllowed: (url: URL) => boolean = isLoopback,
  ) {
    this.log = log;
    this.invented = invented;
    this.timeoutMs = timeoutMs;
    this.hostAllowed = hostAllowed;
  }

  /** Posts the withdrawal's webhooks shortly after its answer, as a provider settling a payout does. */
  schedule(notice: WebhookNotice, behaviour: Behaviour): void {
    const deliveries = this.deliveriesOf(notice, behaviour);
    if (deliveries.length === 0) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.deliverAll(deliveries, behaviour);
    }, DELAY_MS);
    this.timers.add(timer);
  }

  /** Posts the withdrawal's webhooks now, each awaited: resolves when all were answered (or failed). */
  deliverNow(notice: WebhookNotice, behaviour: Behaviour): Promise<void> {
    return this.deliverAll(this.deliveriesOf(notice, behaviour), behaviour);
  }

  /** One delivery per status of the notice's or `webhookStatuses`, in order; none when there is nowhere to post. */
  private deliveriesOf(notice: WebhookNotice, behaviour: Behaviour): Delivery[] {
    const url = httpUrl(notice.url);
    if (behaviour.webhookCopies === 0 || url === undefined) return [];
    if (!this.hostAllowed(url)) {
      this.log(
        `webhook for ${notice.id} not sent: ${url.hostname} is neither a loopback host nor named by PIX_SANDBOX_WEBHOOK_HOSTS`,
      );
      return [];
    }
    return (notice.statuses ?? behaviour.webhookStatuses).map((status) =>
      deliveryOf(notice, url, behaviour, this.invented, status),
    );
  }

  private async deliverAll(deliveries: readonly Delivery[], behaviour: Behaviour): Promise<void> {
    for (const delivery of deliveries) await this.deliver(delivery, behaviour);
  }

  /** Drops the webhooks not yet sent and aborts those in flight. */
  cancelAll(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.closing.abort();
  }

  /**
   * Each copy of a delivery, sent again after a refusal or a failure only under `webhookRetry`, a bounded
   * number of times; otherwise a failed delivery is only logged and the suite judges what arrived.
   */
  private async deliver(delivery: Delivery, behaviour: Behaviour): Promise<void> {
    const attempts = behaviour.webhookRetry?.attempts ?? 1;
    for (let copy = 0; copy < behaviour.webhookCopies; copy++) {
      for (let attempt = 1; attempt <= attempts; attempt++) {
        const status = await this.send(delivery);
        // Closing aborted it: nothing worth reporting, and nothing left to send.
        if (this.closing.signal.aborted) return;
        if ((status !== undefined && status >= 200 && status < 300) || attempt === attempts) break;
        const delayMs = behaviour.webhookRetry?.delayMs ?? 0;
        this.log(`webhook ${delivery.method} ${delivery.target}: sending it again in ${delayMs} ms`);
        try {
          await sleep(delayMs, undefined, { signal: this.closing.signal });
        } catch {
          return;
        }
      }
    }
  }

  /** One attempt: the status it was answered, or undefined when it failed. */
  private async send(delivery: Delivery): Promise<number | undefined> {
    const line = `webhook ${delivery.method} ${delivery.target}`;
    try {
      if (delivery.method === 'GET-declared-body') {
        const status = await this.declareWithoutBody(delivery);
        this.log(`${line} -> ${status}`);
        return status;
      }
      const response = await fetch(delivery.target, {
        method: delivery.method,
        headers: delivery.headers,
        body: delivery.body,
        // A redirect could lead off this machine.
        redirect: 'manual',
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]),
      });
      await response.body?.cancel();
      this.log(`${line} -> ${response.status}`);
      return response.status;
    } catch (error) {
      if (!this.closing.signal.aborted) this.log(`${line} failed: ${reasonOf(error)}`);
      return undefined;
    }
  }

  /**
   * GET with a content-length whose body never comes (fetch cannot send that): the headers only,
   * then the connection waits for the answer, bounded by the time limit, and is closed.
   */
  private declareWithoutBody(delivery: Delivery): Promise<number> {
    const send = delivery.target.startsWith('https:') ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(delivery.target, {
        method: 'GET',
        headers: delivery.headers,
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]),
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
