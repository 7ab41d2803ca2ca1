/** The webhook posted to PostBackUrl after an accepted withdrawal (§4.2, §6). */
import { describeNonDelivery, isDelivered, type Delivery, type StrayReport } from '../webhook/delivery.ts';
import { parseJson, type Exchange } from '../exchange.ts';
import type { JsonValue } from './types.ts';
import { defineCheck, violation } from './check.ts';
import { isJsonContentType } from './responses.ts';

export interface WebhookInput {
  readonly withdrawal: Exchange;
  readonly code: string;
  readonly postBackUrl: string;
  /** Complete requests to the address answered 2xx (see isDelivered). */
  readonly deliveries: readonly Delivery[];
  /** Requests to the address that are no delivery (cut, too large, malformed, refused). */
  readonly incomplete: readonly Delivery[];
  readonly strays: StrayReport;
  readonly timeoutMs: number;
}

const describeDelivery = (d: Delivery): string =>
  `${d.method} ${d.path} (${d.headers['content-type'] ?? 'no content-type'}, ${d.bodyBytes} bytes, ${d.outcome})`;

export const webhookDelivered = defineCheck<WebhookInput>(
  {
    id: 'WEBHOOK-DELIVERED',
    title: 'Posts a webhook to exactly the PostBackUrl of an accepted withdrawal',
    clause: '§4.2, §6',
    level: 'must',
    reason: '"After acceptance, a webhook is posted to the address given in PostBackUrl" (§4.2, §6).',
    needs: ['payout', 'webhook'],
  },
  ({ deliveries, incomplete, strays, postBackUrl, timeoutMs }) => {
    if (deliveries.some(isDelivered)) return [];
    const arrived = describeNonDelivery(incomplete, strays);
    return [
      violation(
        'must',
        `a complete delivery to ${postBackUrl}, answered 2xx`,
        `no complete delivery within ${timeoutMs} ms${arrived === '' ? '' : `: ${arrived}`}`,
      ),
    ];
  },
);

export const webhookIsPost = defineCheck<WebhookInput>(
  {
    id: 'WEBHOOK-POST',
    title: 'Sends the webhook with POST',
    clause: '§6',
    level: 'must',
    reason: '"A webhook is sent by POST to the address in PostBackUrl" (§6).',
    needs: ['payout', 'webhook'],
  },
  ({ deliveries }) =>
    deliveries.filter((d) => d.method !== 'POST').map((d) => violation('must', 'POST', describeDelivery(d))),
);

export const webhookIsJson = defineCheck<WebhookInput>(
  {
    id: 'WEBHOOK-JSON',
    title: 'Sends the webhook as JSON with a JSON content type',
    clause: 'payloads, §6',
    level: 'must',
    reason: 'The document says payloads are JSON, and the webhook is one.',
    needs: ['payout', 'webhook'],
  },
  ({ deliveries }) =>
    deliveries
      .filter((d) => d.outcome === 'matched')
      .filter((d) => !isJsonContentType(d.headers['content-type'] ?? '') || parseJson(d.body) === undefined)
      .map((d) =>
        violation(
          'must',
          'a JSON body with a JSON content type',
          `${describeDelivery(d)}: ${d.body.slice(0, 200)}`,
        ),
      ),
);

/** Identifiers the withdrawal response returned: string or number values of fields named like ids. */
export function returnedIds(response: JsonValue | undefined): string[] {
  if (response === null || typeof response !== 'object') return [];
  const entries = Array.isArray(response)
    ? response.map((v, i) => [String(i), v] as const)
    : Object.entries(response);
  return entries.flatMap(([key, value]) => {
    if (typeof value === 'object') return returnedIds(value);
    const looksLikeId = /(^|_)id$|Id$|^uuid$|transaction/i.test(key);
    return looksLikeId &&
      (typeof value === 'string' || typeof value === 'number') &&
      String(value).length >= 4
      ? [String(value)]
      : [];
  });
}

export const webhookRefersToWithdrawal = defineCheck<WebhookInput>(
  {
    id: 'WEBHOOK-REFERS-TO-WITHDRAWAL',
    title: 'The webhook names the withdrawal it is about (its code or the id the response returned)',
    clause: '§6 (not shown)',
    level: 'should',
    reason:
      'The payload is not shown (§6), but an integrator cannot reconcile a webhook that does not say which withdrawal it reports.',
    needs: ['payout', 'webhook'],
  },
  ({ deliveries, code, withdrawal }) => {
    const ids = [code, ...returnedIds(withdrawal.response.json)];
    return deliveries
      .filter((d) => d.outcome === 'matched' && !ids.some((id) => d.body.includes(id)))
      .map((d) =>
        violation(
          'should',
          `the code '${code}' or one of the returned ids (${ids.slice(1).join(', ') || 'none returned'})`,
          d.body.slice(0, 300),
        ),
      );
  },
);

export interface RefusedWebhookInput {
  readonly refused: Exchange;
  readonly deliveries: readonly Delivery[];
}

export const noWebhookForRefused = defineCheck<RefusedWebhookInput>(
  {
    id: 'WEBHOOK-NONE-FOR-REFUSED',
    title: 'Posts no webhook for a refused withdrawal',
    clause: '§4.2, §6 (not shown)',
    level: 'should',
    reason:
      'The webhook follows "acceptance" (§4.2); a webhook for a refused withdrawal could be taken for a payment.',
    needs: ['provider', 'payout', 'webhook'],
  },
  ({ refused, deliveries }) =>
    deliveries.map((d) =>
      violation(
        'should',
        `no delivery after the withdrawal was refused with ${refused.response.status}`,
        describeDelivery(d),
      ),
    ),
);
