/** What the environment's webhooks look like where §6 shows nothing: recorded, never judged. */
import type { Observation } from '../checks/vocabulary.ts';
import { parseJson } from '../evidence/exchange.ts';
import { shapeOf } from '../evidence/shape.ts';
import { describeAttempt, type ClientCertificate, type Delivery } from '../evidence/delivery.ts';
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
} as const;

/** Whether the provider presented a client certificate (mutual TLS, the Pix convention) and whose. */
function certificateValue(certificate: ClientCertificate): JsonValue {
  if (!certificate.presented) return { presented: false };
  const { presented, authorized, subject, issuer, fingerprint256 } = certificate;
  return { presented, authorized, subject, issuer, fingerprint256 };
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
    ...attempts,
  ];
}
