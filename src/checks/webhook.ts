/**
 * Webhook family (§4.2, §6): the webhook posted to PostBackUrl after an accepted withdrawal, and none
 * after a refused one. The payload, retries and signing are not shown: they are observed, and only the
 * pace of retries is judged (webhook-pace.ts).
 */
import {
  describeNonDelivery,
  isDelivered,
  summaryOf,
  type Delivery,
  type StrayReport,
} from '../evidence/delivery.ts';
import { parseJson, type Exchange } from '../evidence/exchange.ts';
import { excerpt } from '../secrets/redact.ts';
import { isJsonContentType, readPath, type JsonValue } from '../base/json.ts';
import type { WithdrawBody } from '../spec/requests.ts';
import { defineCheck, violation } from './check.ts';
import { familyFile, type Family } from './family.ts';
import { webhookRetryPace } from './webhook-pace.ts';

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

/**
 * A delivery as evidence: method, path, content type, size and outcome, then its headers (the
 * receiver masked their secret values), which is what a person needs to find it in their logs.
 */
function describeDelivery(d: Delivery): string {
  const headers = Object.entries(d.headers).map(([name, value]) => `${name}: ${value}`);
  const unread =
    d.declaredBytes !== null && d.declaredBytes > d.bodyBytes
      ? ` of ${d.declaredBytes} declared, not awaited for a ${d.method}`
      : '';
  return `${d.method} ${d.path} (${d.headers['content-type'] ?? 'no content-type'}, ${d.bodyBytes} bytes${unread}, ${d.outcome})${headers.length === 0 ? '' : `; headers ${headers.join('; ')}`}`;
}

/** Whether a request target is the PostBackUrl's path and query (or their end, past a stripped prefix) in other letter case. */
export function differsOnlyInCase(target: string, postBackUrl: string): boolean {
  const url = new URL(postBackUrl);
  const wanted = `${url.pathname}${url.search}`;
  const [shorter, longer] = target.length <= wanted.length ? [target, wanted] : [wanted, target];
  return (
    target !== wanted && longer.toLowerCase().endsWith(shorter.toLowerCase()) && !longer.endsWith(shorter)
  );
}

/** The body checks judge webhooks sent as §6 says; one sent with another method is WEBHOOK-POST's finding. */
const posted = (deliveries: readonly Delivery[]): readonly Delivery[] =>
  deliveries.filter((d) => d.method === 'POST');

/** Nothing for a content check to read: no delivery, or none by POST whose body was read. */
function noPostedBody({ deliveries }: Pick<WebhookInput, 'deliveries'>): string | undefined {
  if (deliveries.length === 0) return 'no webhook arrived (see WEBHOOK-DELIVERED)';
  return posted(deliveries).some((d) => d.outcome === 'matched')
    ? undefined
    : `no webhook arrived by POST, only ${[...new Set(deliveries.map((d) => d.method))].join(', ')} (see WEBHOOK-POST)`;
}

/** Said where nothing arrived at all: the wait is the suite's choice, not the document's. */
const WEBHOOK_WAIT_NOTE =
  'the wait PIX_WEBHOOK_TIMEOUT_MS sets; the document gives no delay, so a provider whose webhooks come later needs a longer wait';

export const webhookDelivered = defineCheck<WebhookInput>(
  {
    id: 'WEBHOOK-DELIVERED',
    title: 'Posts a webhook to exactly the PostBackUrl of an accepted withdrawal',
    clause: '§4.2, §6',
    level: 'must',
    reason: '"After acceptance, a webhook is posted to the address given in PostBackUrl" (§4.2, §6).',
    remedy:
      'After accepting a withdrawal, POST the webhook to the exact PostBackUrl the request gave (path and query included), not to an address configured elsewhere.',
    needs: ['payout', 'webhook'],
  },
  ({ deliveries, incomplete, strays, postBackUrl, timeoutMs }) => {
    if (deliveries.some(isDelivered)) return [];
    const arrived = describeNonDelivery(incomplete, strays);
    const nothingAt = deliveries.length === 0 ? ` (${WEBHOOK_WAIT_NOTE})` : '';
    const caseOnly = strays.listed.find((d) => differsOnlyInCase(d.path, postBackUrl));
    const folded =
      caseOnly === undefined
        ? ''
        : `; ${new URL(caseOnly.path, postBackUrl).href} differs from the PostBackUrl ${postBackUrl} only in letter case, and a URL's path and query are case-sensitive (RFC 3986 §6.2.2.1)`;
    return [
      violation(
        'must',
        `a complete delivery to ${postBackUrl}, answered 2xx`,
        `no complete delivery within ${timeoutMs} ms${arrived === '' ? nothingAt : `: ${arrived}`}${folded}`,
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
    remedy: 'Send the webhook with the POST method, the payload in the body.',
    needs: ['payout', 'webhook'],
  },
  ({ deliveries }) => {
    const alsoPosted = deliveries.some((d) => d.method === 'POST');
    return deliveries
      .filter((d) => d.method !== 'POST')
      .map((d) =>
        // A request without a body beside the POST (a reachability probe) is not the webhook, but a handler may take it for one.
        alsoPosted && d.bodyBytes === 0 && (d.declaredBytes ?? 0) === 0
          ? violation(
              'should',
              'only the webhook, by POST',
              `${describeDelivery(d)}, besides the webhook by POST: a request the document does not show, which a handler routing by path may answer as a webhook`,
            )
          : violation('must', 'POST', describeDelivery(d)),
      );
  },
  ({ deliveries }) => (deliveries.length === 0 ? 'no webhook arrived (see WEBHOOK-DELIVERED)' : undefined),
);

export const webhookIsJson = defineCheck<WebhookInput>(
  {
    id: 'WEBHOOK-JSON',
    title: 'Sends the webhook as JSON with a JSON content type',
    clause: 'payloads, §6',
    level: 'must',
    reason: 'The document says payloads are JSON, and the webhook is one.',
    remedy: 'Send the webhook body as JSON with Content-Type: application/json.',
    needs: ['payout', 'webhook'],
  },
  ({ deliveries }) =>
    posted(deliveries)
      .filter((d) => d.outcome === 'matched')
      .filter((d) => !isJsonContentType(d.headers['content-type'] ?? '') || !summaryOf(d).json)
      .map((d) =>
        violation(
          'must',
          'a JSON body with a JSON content type',
          `${describeDelivery(d)}; body ${d.body === '' ? '(empty)' : excerpt(d.body, 200, () => '')}`,
        ),
      ),
  noPostedBody,
);

/** Identifiers the withdrawal response returned: string or number values of fields named like ids. */
export function returnedIds(response: JsonValue | undefined): string[] {
  if (response === null || typeof response !== 'object') return [];
  const entries = Array.isArray(response)
    ? response.map((v, i) => [String(i), v] as const)
    : Object.entries(response);
  return entries.flatMap(([key, value]) => {
    if (typeof value === 'object') return returnedIds(value);
    // The camel-case suffix is read case-sensitively: `transferId` is an id, `paid` and `valid` are not;
    // Pix's own `txid` and `e2eid` are named whole.
    const looksLikeId = /(^|_)id$|^uuid$|^(tx|e2e)id$|transaction/i.test(key) || /Id$/.test(key);
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
    remedy: "Put the withdrawal's code, or the id the withdrawal response returned, in the webhook payload.",
    needs: ['payout', 'webhook'],
  },
  ({ deliveries, code, withdrawal }) => {
    const ids = [code, ...returnedIds(withdrawal.response.json)];
    // A whole JSON value, never a part of one: an id "status" is not named by {"status":"PAID"}.
    return posted(deliveries)
      .filter((d) => d.outcome === 'matched' && !ids.some((id) => summaryOf(d).values.includes(id)))
      .map((d) =>
        violation(
          'should',
          `the code '${code}' or one of the returned ids (${ids.slice(1).join(', ') || 'none returned'})`,
          excerpt(d.body, 300, () => ''),
        ),
      );
  },
  noPostedBody,
);

/** The amount a withdrawal request sent, when its body had a numeric one. */
function amountSent(withdrawal: Exchange): number | undefined {
  const amount = readPath(parseJson(withdrawal.request.body ?? ''), 'amount');
  return typeof amount === 'number' ? amount : undefined;
}

export const webhookMatchesWithdrawal = defineCheck<WebhookInput>(
  {
    id: 'WEBHOOK-MATCHES-WITHDRAWAL',
    title: 'A webhook that names the withdrawal by its code reports the amount that was sent',
    clause: '§6 (not shown)',
    level: 'should',
    reason:
      'The payload is not shown (§6), but a webhook naming the withdrawal (its code, unique to it) with another amount than the one sent tells the integrator a different payment than was asked for.',
    remedy:
      'Report in the webhook the amount of the withdrawal it names, as the request sent it; if the field means something else (a fee, a balance), give it another name than amount, value or valor.',
    needs: ['payout', 'webhook'],
  },
  ({ deliveries, code, withdrawal }) => {
    const sent = amountSent(withdrawal);
    if (sent === undefined) return [];
    // The suite's codes are unique, so a delivery holding exactly the code is about this withdrawal.
    return posted(deliveries)
      .filter((d) => d.outcome === 'matched' && summaryOf(d).values.includes(code))
      .flatMap((d) => (summaryOf(d).amounts ?? []).filter((amount) => Math.abs(amount - sent) > 0.000_001))
      .map((amount) =>
        violation(
          'should',
          `the amount sent, ${sent}`,
          `a webhook naming ${code} reports the amount ${amount}`,
        ),
      );
  },
  (input) => {
    const none = noPostedBody(input);
    if (none !== undefined) return none;
    if (amountSent(input.withdrawal) === undefined) return 'the withdrawal sent no numeric amount to compare';
    return posted(input.deliveries).some(
      (d) => d.outcome === 'matched' && summaryOf(d).values.includes(input.code),
    )
      ? undefined
      : `no webhook names the withdrawal by its code ${input.code}, so no amount is said to be its (see WEBHOOK-REFERS-TO-WITHDRAWAL)`;
  },
);

/** A withdrawal the environment refused that named a PostBackUrl, and what arrived there. */
export interface WatchedRefusal {
  readonly code: string;
  /** The check its request served. */
  readonly checkId: string;
  readonly status: number;
  /** Deliveries to its PostBackUrl, and the statuses they reported. */
  readonly deliveries: number;
  readonly statuses: readonly string[];
}

/** A refused withdrawal's deliveries, from the receiver's record of them. */
export function watchedDeliveries(
  deliveries: readonly Delivery[],
): Pick<WatchedRefusal, 'deliveries' | 'statuses'> {
  return { deliveries: deliveries.length, statuses: deliveries.flatMap((d) => summaryOf(d).statuses) };
}

export interface RefusedWebhookInput {
  readonly refusals: readonly WatchedRefusal[];
}

/** The refusals one finding names; the rest are counted. */
const REFUSALS_NAMED = 10;

/** A refusal with its deliveries, as a finding names it. */
const refusalWithWebhooks = (r: WatchedRefusal): string =>
  `${r.code} (${r.checkId}, refused ${r.status}): ${r.deliveries === 1 ? 'a webhook' : `${r.deliveries} webhooks`}${r.statuses.length === 0 ? '' : ` reporting ${r.statuses.join(', ')}`}`;

export const noWebhookForRefused = defineCheck<RefusedWebhookInput>(
  {
    id: 'WEBHOOK-NONE-FOR-REFUSED',
    title: 'Posts no webhook for a refused withdrawal',
    clause: '§4.2, §6 (not shown)',
    level: 'should',
    reason:
      'The webhook follows "acceptance" (§4.2); a webhook for a refused withdrawal could be taken for a payment. Every refused withdrawal of the run that named a PostBackUrl is watched until the run ends.',
    remedy: 'Post no webhook for a withdrawal you refused; the refusal is already the answer to the request.',
    needs: ['provider', 'payout', 'webhook'],
  },
  ({ refusals }) => {
    const got = refusals.filter((r) => r.deliveries > 0);
    if (got.length === 0) return [];
    const more = got.length > REFUSALS_NAMED ? `; and ${got.length - REFUSALS_NAMED} more` : '';
    return [
      violation(
        'should',
        `no webhook for any of the ${refusals.length} refused withdrawals that named a PostBackUrl`,
        `${got.length} of them got webhooks: ${got.slice(0, REFUSALS_NAMED).map(refusalWithWebhooks).join('; ')}${more}`,
      ),
    ];
  },
  ({ refusals }) =>
    refusals.length === 0 ? 'no withdrawal that named a PostBackUrl was refused' : undefined,
);

/** The callback field as the document writes it (§2.1), and the same name wrongly cased. */
const CALLBACK_FIELD = 'PostBackUrl';
const WRONG_CASE_CALLBACK_FIELD = 'postbackurl';

/** The valid body with its callback address under the wrongly cased name, and no PostBackUrl. */
export function wrongCaseCallbackBody(body: WithdrawBody): string {
  const { PostBackUrl, ...rest } = body;
  return JSON.stringify({ ...rest, [WRONG_CASE_CALLBACK_FIELD]: PostBackUrl });
}

export interface WrongCaseInput {
  /** What arrived at the address sent under the wrongly cased name. */
  readonly deliveries: readonly Delivery[];
}

export const callbackFieldCaseSensitive = defineCheck<WrongCaseInput>(
  {
    id: 'WEBHOOK-CALLBACK-FIELD-CASE-SENSITIVE',
    title: `Posts no webhook to an address sent as ${WRONG_CASE_CALLBACK_FIELD}: the callback field is ${CALLBACK_FIELD}, case-sensitive`,
    clause: '§2.1, §6',
    level: 'must',
    reason: `"Field names are case-sensitive; the callback field is written ${CALLBACK_FIELD}" (§2.1), so a withdrawal whose address is under ${WRONG_CASE_CALLBACK_FIELD} has no callback address (§6).`,
    remedy: `Read the callback address only from the field ${CALLBACK_FIELD}, spelled exactly so; a body that has ${WRONG_CASE_CALLBACK_FIELD} instead has none (refuse it, or accept it without a webhook).`,
    needs: ['provider', 'payout', 'webhook'],
  },
  ({ deliveries }) =>
    deliveries.map((d) =>
      violation(
        'must',
        `no delivery to the address given under ${WRONG_CASE_CALLBACK_FIELD}`,
        describeDelivery(d),
      ),
    ),
);

/**
 * One withdrawal refused (without client_secret), one with its callback field wrongly cased, and one
 * accepted, whose webhook is awaited.
 */
const WEBHOOK_WITHDRAWALS = 3;
/** The retry probe's (tests/events/retry.spec.ts), when PIX_WEBHOOK_RETRY_WAIT_S turns it on. */
const RETRY_PROBE_WITHDRAWALS = 1;

export const webhookFamily: Family = {
  name: 'webhook',
  file: familyFile(import.meta.url),
  checks: () => [
    webhookDelivered,
    webhookIsPost,
    webhookIsJson,
    webhookRefersToWithdrawal,
    webhookMatchesWithdrawal,
    noWebhookForRefused,
    callbackFieldCaseSensitive,
    webhookRetryPace,
  ],
  withdrawals: (_spec, { webhookRetryProbe }) =>
    WEBHOOK_WITHDRAWALS + (webhookRetryProbe ? RETRY_PROBE_WITHDRAWALS : 0),
};
