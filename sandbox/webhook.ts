/**
 * The webhook posted to PostBackUrl after a withdrawal (§4.2, §6): its message and where it goes. The
 * document leaves its shape and signing open; the reference payload follows what payout providers send
 * (docs/pix-domain.md) and is signed the Standard Webhooks way; a profile or a fault may send another.
 */
import { createHmac, createSecretKey, randomUUID } from 'node:crypto';
import { isIPv4 } from 'node:net';
import type { Behaviour } from './behaviour.ts';
import { endToEndMinute } from './clock.ts';
import type { WebhookEvent, WebhookKind, Withdrawal } from './outcomes.ts';

/** Standard Webhooks secret: the HMAC key is the base64 text after the prefix. */
export const WEBHOOK_SIGNING_SECRET = 'whsec_cGl4LXNhbmRib3gtd2ViaG9vay1zaWduaW5nLWtleSE=';
// A KeyObject: Node 24 checks a Buffer key on every createHmac, six times the cost of the HMAC itself.
const SIGNING_KEY = createSecretKey(Buffer.from(WEBHOOK_SIGNING_SECRET.slice('whsec_'.length), 'base64'));
/** The default time a webhook handler has to answer (PIX_SANDBOX_WEBHOOK_TIMEOUT_MS). */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Made up: the simulator is no institution with a real ISPB. */
const SIMULATOR_ISPB = '99999999';

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

/**
 * E + ISPB + yyyyMMddHHmm (UTC) + 11 alphanumerics: the 32-character shape of a Pix end-to-end id. The
 * tail comes from randomUUID, whose entropy Node draws in batches, not a system call per webhook.
 */
function endToEndId(): string {
  const uuid = randomUUID();
  const tail = `${uuid.slice(0, 8)}${uuid.slice(9, 12)}`.toUpperCase();
  return `E${SIMULATOR_ISPB}${endToEndMinute()}${tail}`;
}

export function signatureHeaders(body: string, id: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', SIGNING_KEY).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

export interface Message {
  readonly webhookId: string;
  readonly contentType: string;
  readonly body: string;
}

/** A valid JSON array of about `bytes` bytes: the history a verbose provider attaches to a webhook. */
function padding(bytes: number): { history?: { seq: number; note: string }[] } {
  if (bytes <= 0) return {};
  const note = 'x'.repeat(100);
  return { history: Array.from({ length: Math.ceil(bytes / 125) }, (_, seq) => ({ seq, note })) };
}

/** The lenient profile's own words for each status, as a provider of its own vocabulary sends them. */
export const LENIENT_STATUS: Readonly<Record<WebhookEvent, string>> = {
  PAID: 'sucesso',
  PROCESSING: 'processando',
  FAILED: 'falha',
  REJECTED: 'rejeitado',
};

const EXTRA_FIELDS = {
  fee: { amount: 0, currency: 'BRL' },
  metadata: { channel: 'api', batch: null },
  schema_version: '2.1',
};

function payloadOf(withdrawal: Withdrawal, event: WebhookEvent, behaviour: Behaviour): object | undefined {
  switch (behaviour.webhookPayload) {
    case 'reference':
      return {
        event: `withdrawal.${event.toLowerCase()}`,
        id: withdrawal.id,
        code: withdrawal.code,
        status: event,
        amount:
          behaviour.webhookAmount === 'other' && typeof withdrawal.amount === 'number'
            ? withdrawal.amount + 1
            : withdrawal.amount,
        end_to_end_id: endToEndId(),
        ...padding(behaviour.webhookPaddingBytes),
      };
    case 'lenient':
      return {
        type: 'payout.updated',
        data: { transaction_id: withdrawal.id, code: withdrawal.code, status: LENIENT_STATUS[event] },
      };
    case 'anonymous':
      return { event: 'withdrawal.paid', status: 'PAID' };
    case 'text':
      return undefined;
  }
}

/** The message of one webhook as the behaviour shapes it; `malformed` is cut short mid-object, as no JSON parser takes. */
export function messageOf(
  withdrawal: Withdrawal,
  event: WebhookEvent,
  kind: WebhookKind,
  behaviour: Behaviour,
): Message {
  const webhookId = `msg_${randomUUID().replaceAll('-', '')}`;
  const payload = payloadOf(withdrawal, event, behaviour);
  if (payload === undefined) return { webhookId, contentType: 'text/plain', body: `status=${event}` };
  const body = JSON.stringify(kind === 'extra-fields' ? { ...payload, ...EXTRA_FIELDS } : payload);
  return {
    webhookId,
    contentType: 'application/json',
    body: kind === 'malformed' ? body.slice(0, Math.floor(body.length / 2)) : body,
  };
}

/** Where a provider with this behaviour posts the webhook of a withdrawal whose PostBackUrl is `given` (`url` parsed). */
export function targetOf(given: string, url: URL, target: Behaviour['webhookTarget']): string {
  switch (target) {
    case 'exact':
      return given;
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
