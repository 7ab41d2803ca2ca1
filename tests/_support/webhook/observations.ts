/** What the environment's webhooks look like where §6 shows nothing: recorded, never judged. */
import type { JsonValue, Observation } from '../checks/types.ts';
import { parseJson } from '../exchange.ts';
import { shapeOf } from '../shape.ts';
import type { Delivery } from './receiver.ts';

/** Header names that usually carry a signature (Standard Webhooks' webhook-signature, x-signature, …). */
const SIGNATURE_HEADER = /signature|^webhook-(id|timestamp)$|hmac/i;

export function webhookObservations(deliveries: readonly Delivery[], acceptedAt: number): Observation[] {
  const first = deliveries[0];
  if (first === undefined) return [{ topic: 'webhook.delivered', clause: '§6', value: false }];
  const headerNames = Object.keys(first.headers).sort();
  const observe = (topic: string, value: JsonValue): Observation => ({
    topic,
    clause: '§6 (not shown)',
    value,
  });
  return [
    observe('webhook.deliveries', deliveries.length),
    observe('webhook.delayMs', Math.max(0, first.receivedAt - acceptedAt)),
    observe('webhook.headers', headerNames),
    observe(
      'webhook.signature',
      headerNames.filter((name) => SIGNATURE_HEADER.test(name)),
    ),
    observe('webhook.payload.shape', shapeOf(parseJson(first.body))),
  ];
}
