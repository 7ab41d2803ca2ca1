/**
 * §4.2 and §6: the webhook follows acceptance. Every withdrawal the run saw refused that named one of
 * its webhook addresses (bodies, credentials, duplicates, check_code) is watched until the run's
 * webhook wait after the last refusal ends; this file runs after every other test (playwright.config.ts).
 */
import { noWebhookForRefused, type WatchedRefusal } from '../../src/checks/webhook.ts';
import { judging } from '../../src/checks/declare.ts';
import { readRefusals, type Refusal } from '../../src/run/refusals.ts';
import type { Recorder } from '../../src/run/recorder.ts';
import type { WebhookClient } from '../../src/webhook/client.ts';
import { test } from '../_support/fixtures.ts';

/** The run's refusals; with none, the check has nothing to judge and is SKIPPED saying so. */
function refusalsOrSkip(verify: Recorder, reportDir: string, runId: string): Refusal[] {
  const refusals = readRefusals(reportDir, runId);
  if (refusals.length === 0)
    verify.skip([noWebhookForRefused], 'no withdrawal of the run was refused, so none could get a webhook', {
      answer: 'no refused withdrawal in the ledger',
      at: new Date().toISOString(),
    });
  return refusals;
}

/** What arrived for each refusal: each wait ends at its first delivery, or when the run's wait after the last refusal does. */
function watch(
  webhooks: WebhookClient,
  refusals: readonly Refusal[],
  timeoutMs: number,
): Promise<WatchedRefusal[]> {
  const until = Math.max(...refusals.map((r) => r.at)) + timeoutMs;
  return Promise.all(
    refusals.map(async (refusal) => {
      const left = Math.max(0, until - Date.now());
      const { deliveries } = await webhooks.waitFor(refusal.webhookPath, { timeoutMs: left, graceMs: 0 });
      return { ...refusal, deliveries };
    }),
  );
}

test(
  'posts no webhook for any withdrawal it refused, watched until the webhook wait after the last refusal ends (§4.2, §6)',
  judging({ checks: [noWebhookForRefused], tags: ['@webhook', '@payout'] }),
  async ({ verify, webhooks, target }) => {
    verify.requires([noWebhookForRefused]);
    const refusals = refusalsOrSkip(verify, target.config.reportDir, target.runId);
    const { timeoutMs } = target.config.webhook;

    const refusalsWatched =
      await test.step(`watching ${refusals.length} refused withdrawals for webhooks, up to ${timeoutMs / 1000} s after the last`, () =>
        watch(webhooks, refusals, timeoutMs));

    verify.check(noWebhookForRefused, { refusals: refusalsWatched });
  },
);
