/**
 * The pace of one withdrawal's webhook attempts (§6: retries "not shown"): judged on every request
 * that reached its address, in the webhook test's wait and in the retry probe's, whose receiver
 * refuses the first delivery so that a provider that retries does.
 */
import { isDelivered, type DeliveryMeta } from '../evidence/delivery.ts';
import { defineCheck, violation } from './check.ts';

/** More attempts than this for one withdrawal within WINDOW_MS is a storm, whatever their outcomes. */
const MOST_ATTEMPTS = 5;
const WINDOW_MS = 10_000;
/** The least wait before a failed attempt is sent again. */
const LEAST_RETRY_GAP_MS = 1_000;
/** Arrival times are the receiver's clock in whole ms, stamped when each body ended: a retry at 1 s may read 999 ms. */
const CLOCK_SLACK_MS = 5;
/** Attempts the finding lists; a storm's others are counted. */
const SCHEDULE_SHOWN = 10;

/** What the pace of an attempt is judged on. */
export type PaceAttempt = Pick<DeliveryMeta, 'seq' | 'path' | 'receivedAt' | 'answeredStatus' | 'outcome'>;

export interface WebhookAttempts {
  /** Every request to one withdrawal's address, delivered or not (see Delivery's outcome). */
  readonly attempts: readonly PaceAttempt[];
}

/** The most attempts that arrived within any window of `windowMs`, from arrival times in order. */
function mostWithin(times: readonly number[], windowMs: number): number {
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while ((times[last] ?? 0) - (times[first] ?? 0) >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** Each attempt's time from the first and the status it was answered: `+0 ms 503, +20 ms 200, …`. */
function scheduleOf(inOrder: readonly PaceAttempt[]): string {
  const start = inOrder[0]?.receivedAt ?? 0;
  const shown = inOrder
    .slice(0, SCHEDULE_SHOWN)
    .map((a) => `+${a.receivedAt - start} ms ${a.answeredStatus ?? a.outcome}`);
  const more = inOrder.length > SCHEDULE_SHOWN ? `, … (${inOrder.length} attempts in all)` : '';
  return `${shown.join(', ')}${more}`;
}

export const webhookRetryPace = defineCheck<WebhookAttempts>(
  {
    id: 'WEBHOOK-RETRY-PACE',
    title: `Sends a withdrawal's webhook at a sane pace: at most ${MOST_ATTEMPTS} attempts within ${WINDOW_MS / 1000} s, and a failed one again no sooner than ${LEAST_RETRY_GAP_MS / 1000} s later`,
    clause: '§6 (retries: not shown)',
    level: 'should',
    reason:
      "Delivery retries are not shown (§6), but a sender that sends a failed webhook again within a second, or more than 5 times in 10 s, hammers the integrator's handler just when it is failing instead of giving it time to recover (our reading).",
    remedy:
      'Back off between attempts: wait at least a second before sending a failed webhook again and longer after each failure (e.g. 1 s, 10 s, 1 min, 10 min), and stop after a bounded number of attempts.',
    needs: ['payout', 'webhook'],
  },
  ({ attempts }) => {
    const inOrder = [...attempts].sort((a, b) => a.receivedAt - b.receivedAt || a.seq - b.seq);
    const crowded = mostWithin(
      inOrder.map((a) => a.receivedAt),
      WINDOW_MS,
    );
    const gaps = inOrder.flatMap((a, i) => {
      const before = inOrder[i - 1];
      return before === undefined || isDelivered(before) ? [] : [a.receivedAt - before.receivedAt];
    });
    const early = gaps.filter((gap) => gap < LEAST_RETRY_GAP_MS - CLOCK_SLACK_MS);
    const problems = [
      ...(crowded > MOST_ATTEMPTS ? [`${crowded} attempts within ${WINDOW_MS / 1000} s`] : []),
      ...(early.length > 0
        ? [
            `${early.length === 1 ? 'a failed attempt' : `${early.length} failed attempts`} sent again within ${Math.max(...early)} ms`,
          ]
        : []),
    ];
    if (problems.length === 0) return [];
    return [
      violation(
        'should',
        `at most ${MOST_ATTEMPTS} attempts within ${WINDOW_MS / 1000} s, each failed one sent again ${LEAST_RETRY_GAP_MS / 1000} s later or more`,
        `${problems.join(', and ')}: the attempts at ${inOrder[0]?.path ?? ''} arrived at ${scheduleOf(inOrder)}`,
      ),
    ];
  },
  ({ attempts }) =>
    attempts.length === 0 ? 'no request reached the address (see WEBHOOK-DELIVERED)' : undefined,
);
