/**
 * §4.2 and §6: after acceptance, a webhook is POSTed to exactly the PostBackUrl of the withdrawal.
 * Payload, retries and signing are not shown, so they are recorded as observations; the pace of the
 * attempts that arrived is judged (WEBHOOK-RETRY-PACE). §2.1 over time: once the webhook arrived, the
 * accepted code is sent again (check_code true) within the wait for its copies.
 */
import type { Check } from '../../src/checks/check.ts';
import { paymentAccepted } from '../../src/checks/bodies.ts';
import {
  type LaterDuplicate,
  laterDuplicateObservation,
  laterDuplicateRefused,
} from '../../src/checks/check-code.ts';
import {
  callbackFieldCaseSensitive,
  noWebhookForRefused,
  webhookDelivered,
  webhookIsJson,
  webhookIsPost,
  webhookRefersToWithdrawal,
  webhookMatchesWithdrawal,
  type WebhookInput,
  watchedDeliveries,
  wrongCaseCallbackBody,
} from '../../src/checks/webhook.ts';
import { judging } from '../../src/checks/declare.ts';
import { webhookRetryPace } from '../../src/checks/webhook-pace.ts';
import { test } from '../_support/fixtures.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import type { NewWithdrawal } from '../../src/run/payouts.ts';
import type { PixClient } from '../../src/run/pix-client.ts';
import type { Inventor } from '../../src/spec/invent.ts';
import { type Headers, withoutHeader } from '../../src/spec/requests.ts';
import { isClientError } from '../../src/base/status.ts';
import { allSettledInOrder } from '../../src/base/settled.ts';
import { blockerOf, CaseStopped, type Recorder } from '../../src/run/recorder.ts';
import type { WebhookClient } from '../../src/webhook/receiver-client.ts';
import { webhookObservations } from '../../src/webhook/observations.ts';

const CONTENT_CHECKS: readonly Check<WebhookInput>[] = [
  webhookIsPost,
  webhookIsJson,
  webhookRefersToWithdrawal,
  webhookMatchesWithdrawal,
];

/** Every check the test judges; each withdrawal it sends is judged after the one wait for the accepted one. */
const CHECKS = [
  webhookDelivered,
  ...CONTENT_CHECKS,
  webhookRetryPace,
  noWebhookForRefused,
  callbackFieldCaseSensitive,
  laterDuplicateRefused,
];

interface Sent {
  readonly withdrawal: NewWithdrawal;
  readonly exchange: Exchange;
}

/** Judges what arrived for the accepted withdrawal; content checks need a delivery to look at. */
function verifyDeliveries(verify: Recorder, input: WebhookInput): void {
  verify.check(webhookDelivered, input, input.withdrawal);
  verify.check(webhookRetryPace, { attempts: [...input.deliveries, ...input.incomplete] }, input.withdrawal);
  if (input.deliveries.length === 0) {
    verify.skipSome(
      CONTENT_CHECKS,
      `no webhook arrived, so there is nothing to judge (see ${webhookDelivered.id})`,
      { answer: 'no webhook arrived', at: new Date().toISOString(), check: webhookDelivered.id },
    );
    return;
  }
  for (const check of CONTENT_CHECKS) verify.check(check, input, input.withdrawal);
}

/**
 * A withdrawal without client_secret must be refused first; only then is a webhook for it wrong. The
 * run's other refusals are watched until it ends (Payouts.recordWebhooks) and join this finding in
 * the certification (src/report/refusals.ts).
 */
async function verifyNoWebhookForRefused(
  verify: Recorder,
  webhooks: WebhookClient,
  refused: NewWithdrawal,
  exchange: Exchange,
): Promise<void> {
  const [check] = verify.runnable([noWebhookForRefused]);
  if (check === undefined) return;
  if (!isClientError(exchange.response.status)) {
    verify.skipSome(
      [check],
      `the withdrawal without client_secret was answered ${exchange.response.status}, not refused`,
      blockerOf(exchange),
    );
    return;
  }
  const { deliveries } = await webhooks.snapshot(refused.path);
  const watched = { code: refused.code, checkId: check.id, status: exchange.response.status };
  verify.check(check, { refusals: [{ ...watched, ...watchedDeliveries(deliveries) }] }, exchange);
}

/** A withdrawal whose address is under postbackurl, not PostBackUrl; sent only when the check can run. */
async function sendWrongCase(pix: PixClient, verify: Recorder, headers: Headers): Promise<Sent | undefined> {
  const [check] = verify.runnable([callbackFieldCaseSensitive]);
  if (check === undefined) return undefined;
  const withdrawal = await pix.newWithdrawal();
  const exchange = await pix.withdraw(check.id, withdrawal, headers, wrongCaseCallbackBody(withdrawal.body));
  return { withdrawal, exchange };
}

/** Whatever the provider answered, a webhook to the wrongly cased address reads a field §2.1 does not name. */
async function verifyCallbackFieldCase(
  webhooks: WebhookClient,
  verify: Recorder,
  sent: Sent | undefined,
): Promise<void> {
  if (sent === undefined) return;
  const { deliveries } = await webhooks.snapshot(sent.withdrawal.path);
  verify.check(callbackFieldCaseSensitive, { deliveries }, sent.exchange);
}

/** The accepted withdrawal, with when its answer came: the webhook's delay counts from then. */
async function sendAccepted(
  pix: PixClient,
  verify: Recorder,
  headers: Headers,
): Promise<Sent & { acceptedAt: number }> {
  const { withdrawal, exchange } = await pix.withdrawNew(webhookDelivered.id, headers);
  const acceptedAt = Date.now();
  if (exchange.response.status !== 200) {
    verify.skip(
      CHECKS,
      `the withdrawal was not accepted (${exchange.response.status}), and the webhook follows acceptance; see ${paymentAccepted.id}`,
      blockerOf(exchange, paymentAccepted),
    );
  }
  return { withdrawal, exchange, acceptedAt };
}

/**
 * Sends the accepted withdrawal's code again, check_code true, as soon as its first webhook arrived,
 * and judges the answer: a provider that checks a code only against withdrawals still processing has
 * forgotten it then. Not sent when no webhook arrived (WEBHOOK-DELIVERED's finding). A case of its
 * own: a copy the environment leaves unanswered stops only itself, not the webhook's verdicts.
 */
async function verifyCodeOnceDelivered(
  {
    pix,
    verify,
    invent,
    webhooks,
  }: { pix: PixClient; verify: Recorder; invent: Inventor; webhooks: WebhookClient },
  headers: Headers,
  accepted: Sent & { acceptedAt: number },
  timeoutMs: number,
): Promise<void> {
  const [check] = verify.runnable([laterDuplicateRefused]);
  if (check === undefined) return;
  const again = verify.forCase([check]);
  const againPix = pix.forCase(again, invent.branch(check.id));
  const { withdrawal, acceptedAt } = accepted;
  const { deliveries } = await webhooks.waitFor(withdrawal.path, { timeoutMs, graceMs: 0 });
  if (deliveries.length === 0) {
    again.skipSome(
      [check],
      `no webhook arrived for ${withdrawal.code}, so its code was not sent again once it had (see ${webhookDelivered.id})`,
      { answer: 'no webhook arrived', at: new Date().toISOString(), check: webhookDelivered.id },
    );
    return;
  }
  try {
    const copy = await againPix.newWithdrawal();
    const body = JSON.stringify({ ...withdrawal.body, PostBackUrl: copy.url, check_code: true });
    const afterMs = Date.now() - acceptedAt;
    // The accepted code on purpose: the ledger records the copy under it.
    const exchange = await againPix.withdraw(check.id, { ...copy, code: withdrawal.code }, headers, body);
    const later: LaterDuplicate = { exchange, afterMs, moment: 'once its webhook had arrived' };
    again.check(check, later, exchange);
    const { topic, value, note } = laterDuplicateObservation(later);
    again.observe(topic, check.clause, value, note);
  } catch (error) {
    // The case recorded why it stopped.
    if (!(error instanceof CaseStopped)) throw error;
  }
}

test(
  'posts a webhook by POST, as JSON, to exactly the PostBackUrl of an accepted withdrawal, and none for a refused one or to a wrongly cased postbackurl; refuses the accepted code again once its webhook arrived (§2.1, §4.2, §6)',
  judging({ checks: CHECKS, tags: ['@webhook', '@payout', '@mutating'] }),
  async ({ pix, verify, invent, webhooks, target }) => {
    verify.requires([webhookDelivered]);
    const headers = await pix.paymentHeaders(CHECKS);

    // The three withdrawals depend on no answer of each other: they go out together, and each is
    // judged once all have answered (a refusal of the accepted one stops the test only then).
    const [refusedSent, wrongCase, accepted] = await allSettledInOrder([
      pix.withdrawNew(noWebhookForRefused.id, withoutHeader(headers, 'client_secret')),
      sendWrongCase(pix, verify, headers),
      sendAccepted(pix, verify, headers),
    ] as const);
    const { withdrawal: refused, exchange: refusedExchange } = refusedSent;
    const { withdrawal, exchange, acceptedAt } = accepted;
    const { timeoutMs, graceMs } = target.config.webhook;

    // A step, so that the reporter tells the person at the terminal why the run is quiet meanwhile;
    // the code goes again as soon as the webhook arrived, while the wait goes on for its copies.
    const [{ deliveries, incomplete, strays }] =
      await test.step(`waiting up to ${timeoutMs / 1000} s for the webhook of ${withdrawal.code}`, () =>
        allSettledInOrder([
          webhooks.waitFor(withdrawal.path, { timeoutMs, graceMs }),
          verifyCodeOnceDelivered({ pix, verify, invent, webhooks }, headers, accepted, timeoutMs),
        ] as const));

    verifyDeliveries(verify, {
      withdrawal: exchange,
      code: withdrawal.code,
      postBackUrl: withdrawal.url,
      deliveries,
      incomplete,
      strays,
      timeoutMs,
    });
    await verifyNoWebhookForRefused(verify, webhooks, refused, refusedExchange);
    await verifyCallbackFieldCase(webhooks, verify, wrongCase);
    for (const observation of webhookObservations(deliveries, acceptedAt, incomplete))
      verify.observe(observation.topic, observation.clause, observation.value, observation.note);
  },
);
