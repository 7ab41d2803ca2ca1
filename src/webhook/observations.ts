/** What the environment's webhooks look like where §6 shows nothing: recorded, never judged. */
import type { Observation } from '../checks/vocabulary.ts';
import { parseJson } from '../evidence/exchange.ts';
import { shapeOf } from '../evidence/shape.ts';
import { describeAttempt, summaryOf, type ClientCertificate, type Delivery } from '../evidence/delivery.ts';
import type { JsonValue } from '../base/json.ts';

/** Header names that usually carry a signature (Standard Webhooks' webhook-signature, x-signature, …). */
const SIGNATURE_HEADER = /signature|^webhook-(id|timestamp)$|hmac/i;

/** What each observation is, in a report's words. */
const NOTES = {
  'webhook.delivered': 'no complete webhook arrived for the accepted withdrawal',
  'webhook.deliveries': 'complete deliveries for one withdrawal (more than 1: duplicates or retries)',
  'webhook.delayMs': 'from the acceptance of the withdrawal to its first delivery, in milliseconds',
  'webhook.headers': 'the header names of the first delivery',
  'webhook.signature': 'the header names of the first delivery that look like a signature',
  'webhook.payload.shape': 'the fields of the payload and their types, no values',
  'webhook.clientCertificate': 'the TLS client certificate the provider presented to the receiver',
  'webhook.incomplete': 'requests to the address that were no delivery (cut, too large, malformed, refused)',
  'webhook.statuses':
    'the deliveries for one withdrawal reported different statuses: each delivery in arrival order, with the values of its status fields and when it arrived',
} as const;

/** Whether the provider presented a client certificate (mutual TLS, the Pix convention) and whose. */
function certificateValue(certificate: ClientCertificate): JsonValue {
  if (!certificate.presented) return { presented: false };
  const { presented, authorized, subject, issuer, fingerprint256 } = certificate;
  return { presented, authorized, subject, issuer, fingerprint256 };
}

/**
 * The deliveries of one withdrawal in arrival order, with the status values each reported and when it
 * arrived, when they do not all report the same: PROCESSING then PAID, or PAID then FAILED.
 */
function statusesValue(deliveries: readonly Delivery[]): JsonValue | undefined {
  const posted = deliveries.filter((d) => d.method === 'POST');
  const reported = posted.map((d) => ({
    statuses: [...summaryOf(d).statuses],
    receivedAt: new Date(d.receivedAt).toISOString(),
  }));
  const distinct = new Set(reported.map((r) => JSON.stringify(r.statuses)));
  return distinct.size > 1 ? reported : undefined;
}

/**
 * `deliveries`: the complete ones (see isDelivered); `incomplete`: requests to the address that were
 * cut, too large, malformed or refused, recorded so the report says what did arrive.
 */
export function webhookObservations(
  deliveries: readonly Delivery[],
  acceptedAt: number,
  incomplete: readonly Delivery[] = [],
): Observation[] {
  const observe = (topic: keyof typeof NOTES, value: JsonValue): Observation => ({
    topic,
    clause: '§6 (not shown)',
    value,
    note: NOTES[topic],
  });
  const attempts =
    incomplete.length > 0 ? [observe('webhook.incomplete', incomplete.map(describeAttempt))] : [];
  const first = deliveries[0];
  if (first === undefined) return [{ ...observe('webhook.delivered', false), clause: '§6' }, ...attempts];
  const headerNames = Object.keys(first.headers).sort();
  const statuses = statusesValue(deliveries);
  return [
    observe('webhook.deliveries', deliveries.length),
    observe('webhook.delayMs', Math.max(0, first.receivedAt - acceptedAt)),
    observe('webhook.headers', headerNames),
    observe(
      'webhook.signature',
      headerNames.filter((name) => SIGNATURE_HEADER.test(name)),
    ),
    observe('webhook.payload.shape', shapeOf(parseJson(first.body))),
    ...(first.clientCertificate === null
      ? []
      : [observe('webhook.clientCertificate', certificateValue(first.clientCertificate))]),
    ...(statuses === undefined ? [] : [observe('webhook.statuses', statuses)]),
    ...attempts,
  ];
}

/** What the retry probe found, where §6 says retries are "not shown": recorded, never judged. */
export interface RetryProbe {
  /** Every request to the probe's address, delivered or not. */
  readonly requests: readonly Delivery[];
  /** How long after the refused delivery the probe waited for another (PIX_WEBHOOK_RETRY_WAIT_S). */
  readonly waitMs: number;
  /** How long the probe waited for the first delivery (PIX_WEBHOOK_TIMEOUT_MS). */
  readonly firstWaitMs: number;
}

const RETRY_CLAUSE = '§6 (not shown)';
const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/**
 * Whether the provider sent again a webhook whose first delivery the receiver answered with a 5xx,
 * within the wait, after how long and in how many attempts (the refused one included), e.g.
 * `{ retried: true, attempts: 2, afterSeconds: 30.1, waitSeconds: 60, refusedWith: 503 }`.
 */
export function retryObservation({ requests, waitMs, firstWaitMs }: RetryProbe): Observation {
  const inOrder = [...requests].sort((a, b) => a.seq - b.seq);
  const refused = inOrder.find((d) => d.outcome === 'declined');
  const waitSeconds = seconds(waitMs);
  if (refused === undefined) {
    const what =
      inOrder.length === 0
        ? `no webhook arrived within ${seconds(firstWaitMs)} s`
        : `no complete POST arrived (${inOrder.map(describeAttempt).join('; ')})`;
    return {
      topic: 'webhook.retry',
      clause: RETRY_CLAUSE,
      value: { refused: false, attempts: inOrder.length, waitSeconds },
      note: `not probed: ${what}, so there was no first delivery to refuse`,
    };
  }
  const later = inOrder.filter((d) => d.seq > refused.seq && d.receivedAt - refused.receivedAt <= waitMs);
  const next = later[0];
  const refusedWith = refused.answeredStatus ?? 0;
  const attempts = 1 + later.length;
  if (next === undefined)
    return {
      topic: 'webhook.retry',
      clause: RETRY_CLAUSE,
      value: { retried: false, attempts, waitSeconds, refusedWith },
      note: `the receiver answered the first delivery ${refusedWith}: none within ${waitSeconds} s`,
    };
  const afterSeconds = seconds(next.receivedAt - refused.receivedAt);
  return {
    topic: 'webhook.retry',
    clause: RETRY_CLAUSE,
    value: { retried: true, attempts, afterSeconds, waitSeconds, refusedWith },
    note: `the receiver answered the first delivery ${refusedWith}: retried after ${afterSeconds} s, ${attempts} attempts within ${waitSeconds} s`,
  };
}
