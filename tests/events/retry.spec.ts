/**
 * §6: delivery retries are "not shown". The retry probe (PIX_WEBHOOK_RETRY_WAIT_S, off by default)
 * sends one more withdrawal, whose first delivery the receiver answers 503, and records whether the
 * provider sends it again within the wait, after how long and in how many attempts: an observation.
 * Only the pace of those attempts is judged (WEBHOOK-RETRY-PACE); WEBHOOK-DELIVERED is judged on the
 * other withdrawals (webhook.spec.ts).
 */
import { judging } from '../../src/checks/declare.ts';
import { webhookRetryPace } from '../../src/checks/webhook-pace.ts';
import { configOfThisProcess } from '../../src/config/config.ts';
import { test } from '../_support/fixtures.ts';
import type { Capability } from '../../src/checks/vocabulary.ts';
import type { NewWithdrawal } from '../../src/run/payouts.ts';
import type { PixClient } from '../../src/run/pix-client.ts';
import type { Recorder } from '../../src/run/recorder.ts';
import type { Target } from '../../src/run/target.ts';
import type { DeliveryReport, WebhookClient } from '../../src/webhook/receiver-client.ts';
import { retryObservation } from '../../src/webhook/observations.ts';
import { isSuccess } from '../../src/base/status.ts';

/** The status of the refusal: a provider that retries at all retries a 503. */
const REFUSAL = 503;
/** The probe needs what WEBHOOK-DELIVERED needs, and a provider: the mock never sends anything again. */
const NEEDS: readonly Capability[] = ['provider', 'payout', 'webhook'];
/** The receiver holds one long poll at most this long; a longer wait asks again. */
const LONGEST_POLL_MS = 120_000;
/** Beyond the two waits: the token, the withdrawal and the control calls. */
const MARGIN_MS = 10_000;
const CLAUSE = '§6 (not shown)';
/** The ledger's name for the probe's withdrawal, which serves no check. */
const PROBE = 'webhook.retry';

const { retryWaitMs } = configOfThisProcess().webhook;

function notProbed(verify: Recorder, why: string): void {
  verify.observe(PROBE, CLAUSE, 'not probed', `the retry probe could not run: ${why}`);
}

/** After the refused delivery, waits until another is delivered or the probe's wait is over. */
async function afterTheRefusal(
  webhooks: WebhookClient,
  path: string,
  deadline: number,
): Promise<DeliveryReport> {
  let report = await webhooks.snapshot(path);
  while (report.deliveries.length === 0 && Date.now() < deadline) {
    const timeoutMs = Math.min(LONGEST_POLL_MS, deadline - Date.now());
    report = await webhooks.waitFor(path, { timeoutMs, graceMs: 0 });
  }
  return report;
}

/** The first request to the address, refused, and what followed within the wait. */
async function watch(
  target: Target,
  webhooks: WebhookClient,
  withdrawal: NewWithdrawal,
): Promise<DeliveryReport> {
  const { timeoutMs } = target.config.webhook;

  const first =
    await test.step(`waiting up to ${timeoutMs / 1000} s for the webhook of ${withdrawal.code}, to refuse it`, () =>
      webhooks.waitFor(withdrawal.path, { timeoutMs, graceMs: 0, until: 'attempt' }));

  if (first.deliveries.length + first.incomplete.length === 0) return first;
  const deadline = Date.now() + retryWaitMs;
  return test.step(`waiting up to ${retryWaitMs / 1000} s for the provider to send it again`, () =>
    afterTheRefusal(webhooks, withdrawal.path, deadline));
}

async function verifyRetries(
  pix: PixClient,
  verify: Recorder,
  webhooks: WebhookClient,
  target: Target,
): Promise<void> {
  const missing = NEEDS.map((need) => target.missing(need)).find((reason) => reason !== undefined);
  if (missing !== undefined) {
    notProbed(verify, missing);
    return;
  }
  const headers = await pix.paymentHeaders([]);
  const withdrawal = await pix.newWithdrawal({ refuseFirst: REFUSAL });
  const exchange = await pix.withdraw(PROBE, withdrawal, headers, JSON.stringify(withdrawal.body));
  if (!isSuccess(exchange.response.status)) {
    notProbed(
      verify,
      `its withdrawal was answered ${exchange.response.status}, and a webhook follows acceptance`,
    );
    return;
  }
  const { deliveries, incomplete } = await watch(target, webhooks, withdrawal);
  const requests = [...deliveries, ...incomplete];
  verify.check(webhookRetryPace, { attempts: requests }, exchange);
  const observation = retryObservation({
    requests,
    waitMs: retryWaitMs,
    firstWaitMs: target.config.webhook.timeoutMs,
  });
  verify.observe(observation.topic, observation.clause, observation.value, observation.note);
}

// Off (0, the default), the probe is no test at all: nothing of it in the selection or the plan.
if (retryWaitMs > 0)
  test(
    'records whether the provider sends again a webhook the receiver answered 503, after how long and in how many attempts (§6, not shown)',
    judging({ checks: [webhookRetryPace], tags: ['@webhook', '@payout', '@mutating'] }),
    async ({ pix, verify, webhooks, target }) => {
      test.setTimeout(test.info().timeout + retryWaitMs + MARGIN_MS);
      await verifyRetries(pix, verify, webhooks, target);
    },
  );
