/**
 * What the webhook receiver records of a request, and what counts as a delivery: shared by the
 * receiver service, its control API, the workers' client and the webhook checks.
 */

/**
 * - `matched`: complete, to a registered address, answered 2xx: the only outcome that is a delivery.
 * - `stray`: complete, to a path no address of the run owns; answered 404.
 * - `too-large`: refused with 413 once the body passed the receiver's size cap; the rest is left unread.
 * - `aborted`: the sender went away (or stalled past the receiver's time-out) before the body ended.
 * - `malformed`: the HTTP itself broke mid-request (e.g. bad chunked encoding); answered 400.
 * - `refused`: answered 403 because the receiver requires a client certificate and none valid came.
 * - `declined`: complete, to a registered address, and answered with the 5xx the run asked that
 *   address to answer its first POST with (the retry probe): kept whole, but no delivery.
 */
export type Outcome = 'matched' | 'stray' | 'too-large' | 'aborted' | 'malformed' | 'refused' | 'declined';

/** The TLS client certificate of the connection a request came on; null on plain HTTP. */
export type ClientCertificate =
  | { readonly presented: false }
  | {
      readonly presented: true;
      /** Signed by the receiver's client CA (PIX_RECEIVER_CLIENT_CA_FILE) and valid now. */
      readonly authorized: boolean;
      /** Why it is not authorized (OpenSSL's reason), or null. */
      readonly authorizationError: string | null;
      /** RFC 2253-like, e.g. 'CN=provider.example, O=Provider'. */
      readonly subject: string;
      readonly issuer: string;
      /** SHA-256 of the DER certificate, colon-separated hex. */
      readonly fingerprint256: string;
    };

/** What is recorded of every request, strays included: never the body nor the headers. */
export interface DeliveryMeta {
  /** Arrival order within the receiver, from 1. */
  readonly seq: number;
  /** Request path without the query, as received. */
  readonly path: string;
  readonly method: string;
  readonly contentType: string | null;
  /** Body bytes actually received. */
  readonly bodyBytes: number;
  /** What content-length announced, or null (chunked, or no header). */
  readonly declaredBytes: number | null;
  /** Epoch ms when the body completed, or when the request was refused or broke off. */
  readonly receivedAt: number;
  /** The status the receiver answered; null when the sender went away first. */
  readonly answeredStatus: number | null;
  readonly outcome: Outcome;
  readonly clientCertificate: ClientCertificate | null;
}

/**
 * What the whole body held, read at intake (up to the receiver's size limit) so that a large webhook
 * is judged from all of it while the store keeps only this and the first 64 KiB.
 */
export interface BodySummary {
  /** The whole body parsed as JSON. */
  readonly json: boolean;
  /**
   * The distinct string and number values anywhere in it, as text, at most MAX_SUMMARY_VALUES of at
   * most MAX_SUMMARY_VALUE_CHARS each: a webhook names a withdrawal when one of them is its code or id.
   */
  readonly values: readonly string[];
  /** The values of members named like a status (`status`, `situacao`, `state`), in document order. */
  readonly statuses: readonly string[];
  /** The numbers in members named like an amount (`amount`, `value`, `valor`); absent from older summaries. */
  readonly amounts?: readonly number[];
}

export const MAX_SUMMARY_VALUES = 5_000;
export const MAX_SUMMARY_VALUE_CHARS = 256;

/** A request to one of the run's addresses, with what it carried. */
export interface Delivery extends DeliveryMeta {
  /** Lower-case names, secret values masked. */
  readonly headers: Readonly<Record<string, string>>;
  /** UTF-8 text of at most the first 64 KiB (`truncated` says when more came), secrets masked. */
  readonly body: string;
  readonly truncated: boolean;
  /** The whole body's summary; absent from receivers older than it, whose checks read `body`. */
  readonly summary?: BodySummary;
}

const STATUS_NAME = /^(status|situacao|situação|state)$/i;
const AMOUNT_NAME = /^(amount|value|valor)$/i;

/** The summary of a body's text (see BodySummary); values are collected breadth-first and bounded. */
export function summariseBody(text: string): BodySummary {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { json: false, values: [], statuses: [], amounts: [] };
  }
  const values = new Set<string>();
  const statuses: string[] = [];
  const amounts: number[] = [];
  const queue: unknown[] = [parsed];
  for (let at = 0; at < queue.length && values.size < MAX_SUMMARY_VALUES; at++) {
    const value = queue[at];
    if (typeof value === 'string' || typeof value === 'number') {
      const textual = String(value);
      if (textual.length <= MAX_SUMMARY_VALUE_CHARS) values.add(textual);
    } else if (Array.isArray(value)) queue.push(...(value as unknown[]));
    else if (value !== null && typeof value === 'object')
      for (const [name, member] of Object.entries(value)) {
        if (STATUS_NAME.test(name) && typeof member === 'string') statuses.push(member);
        if (AMOUNT_NAME.test(name) && typeof member === 'number') amounts.push(member);
        queue.push(member);
      }
  }
  return { json: true, values: [...values], statuses, amounts };
}

/** Requests to other paths since an address was registered: where a provider may have posted instead. */
export interface StrayReport {
  /** The earliest of them, metadata only, at most a few dozen. */
  readonly listed: readonly DeliveryMeta[];
  /** How many there were in all, listed or not. */
  readonly total: number;
  /**
   * Requests to paths that belong to no run, which a receiver shared between runs counts but never
   * lists (they may be another run's); always 0 for the suite's own local receiver, which lists them.
   */
  readonly unlisted: number;
}

/** Only a complete request to the address that the receiver answered with 2xx was delivered. */
export function isDelivered(delivery: Pick<DeliveryMeta, 'outcome' | 'answeredStatus'>): boolean {
  const status = delivery.answeredStatus ?? 0;
  return delivery.outcome === 'matched' && status >= 200 && status < 300;
}

/** '87 bytes', or '120 of 400 bytes' when fewer came than content-length announced. */
function bytesOf(d: DeliveryMeta): string {
  return d.declaredBytes === null || d.declaredBytes === d.bodyBytes
    ? `${d.bodyBytes} bytes`
    : `${d.bodyBytes} of ${d.declaredBytes} bytes`;
}

/** One line a person understands, e.g. 'a POST to the address was cut after 120 of 400 bytes'. */
export function describeAttempt(d: DeliveryMeta): string {
  const what = `a ${d.method} to the address`;
  switch (d.outcome) {
    case 'aborted':
      return `${what} was cut after ${bytesOf(d)}`;
    case 'too-large':
      return `${what} was refused with 413 after ${bytesOf(d)}, over the receiver's size limit`;
    case 'malformed':
      return `${what} was malformed HTTP, answered 400 after ${bytesOf(d)}`;
    case 'refused':
      return `${what} came without a valid client certificate and was refused with 403`;
    case 'declined':
      return `${what} (${d.contentType ?? 'no content-type'}, ${bytesOf(d)}) was answered ${d.answeredStatus ?? 'nothing'} on purpose, to see whether it comes again`;
    case 'matched':
    case 'stray':
      return `${what} (${d.contentType ?? 'no content-type'}, ${bytesOf(d)}) was answered ${d.answeredStatus ?? 'nothing'}`;
  }
}

/** e.g. 'POST /webhook (application/json, 87 bytes, stray)'. */
export function describeRequest(d: DeliveryMeta): string {
  return `${d.method} ${d.path} (${d.contentType ?? 'no content-type'}, ${bytesOf(d)}, ${d.outcome})`;
}

/** What else arrived when no delivery did: attempts at the address, then requests elsewhere. */
export function describeNonDelivery(incomplete: readonly DeliveryMeta[], strays: StrayReport): string {
  const parts = incomplete.map(describeAttempt);
  if (strays.listed.length > 0) {
    const more = strays.total - strays.listed.length;
    parts.push(
      `posted to another address instead: ${strays.listed.map(describeRequest).join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`,
    );
  }
  if (strays.unlisted > 0)
    parts.push(
      `${strays.unlisted} request${strays.unlisted === 1 ? '' : 's'} to paths of no run reached the shared receiver meanwhile (not listed: they may be another run's)`,
    );
  return parts.join('; ');
}

/** The whole body's summary, from the receiver, or made from the kept text (a receiver older than summaries). */
export function summaryOf(delivery: Delivery): BodySummary {
  return delivery.summary ?? summariseBody(delivery.body);
}
