/**
 * WEBHOOK-RETRY-PACE (src/checks/webhook-pace.ts), called directly on attempts at one address: a storm
 * and a quick retry warn with the observed schedule, cut; a retry after a second, copies of a
 * delivered webhook and a sequence of statuses pass; nothing arrived is SKIPPED, never PASSED.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verdictOf } from '../src/checks/check.ts';
import { webhookRetryPace } from '../src/checks/webhook-pace.ts';
import type { Delivery } from '../src/evidence/delivery.ts';
import { delivered } from './support/exchanges.ts';

const T0 = 1_700_000_000_000;

/** Attempts at the address at these ms after the first, each answered the status given. */
function attempts(...schedule: readonly [ms: number, status: number][]): Delivery[] {
  return schedule.map(([ms, status], i) =>
    delivered('{}', {
      seq: i + 1,
      receivedAt: T0 + ms,
      answeredStatus: status,
      outcome: status >= 200 && status < 300 ? 'matched' : 'declined',
    }),
  );
}

const judge = (list: readonly Delivery[]) => webhookRetryPace.judge({ attempts: list });

describe('WEBHOOK-RETRY-PACE', () => {
  it('warns on a failed attempt sent again within a second, with the schedule', () => {
    assert.deepEqual(judge(attempts([0, 503], [20, 200])), [
      {
        verdict: 'WARNING',
        expected: 'at most 5 attempts within 10 s, each failed one sent again 1 s later or more',
        actual:
          'a failed attempt sent again within 20 ms: the attempts at /hook/1 arrived at +0 ms 503, +20 ms 200',
      },
    ]);
  });

  it('warns on a storm: 30 attempts 20 ms apart, its schedule cut after ten', () => {
    const storm = attempts(
      ...Array.from({ length: 30 }, (_, i): [number, number] => [i * 20 + (i % 2), i === 29 ? 200 : 500]),
    );
    const [finding] = judge(storm);
    assert.equal(finding?.verdict, 'WARNING');
    assert.equal(
      finding.actual,
      '30 attempts within 10 s, and 29 failed attempts sent again within 21 ms: the attempts at /hook/1 arrived at +0 ms 500, +21 ms 500, +40 ms 500, +61 ms 500, +80 ms 500, +101 ms 500, +120 ms 500, +141 ms 500, +160 ms 500, +181 ms 500, … (30 attempts in all)',
    );
  });

  it('warns on more than 5 attempts within 10 s even when each waited a second', () => {
    const six = attempts(
      ...Array.from({ length: 6 }, (_, i): [number, number] => [i * 1_500, i === 5 ? 200 : 503]),
    );
    assert.match(judge(six)[0]?.actual ?? '', /^6 attempts within 10 s: /);
    const spread = attempts(
      ...Array.from({ length: 6 }, (_, i): [number, number] => [i * 2_000, i === 5 ? 200 : 503]),
    );
    assert.deepEqual(judge(spread), [], 'six attempts over 10 s are no storm');
  });

  it('passes a retry a second or more after the failure, clocks rounding a few ms', () => {
    assert.deepEqual(judge(attempts([0, 503], [1_000, 200])), []);
    assert.deepEqual(judge(attempts([0, 503], [997, 200])), []);
    assert.equal(verdictOf(judge(attempts([0, 503], [990, 200]))), 'WARNING');
  });

  it('passes attempts after a delivered one, however quick: copies and statuses are no retries', () => {
    assert.deepEqual(judge(attempts([0, 200], [3, 200])), [], 'a copy');
    assert.deepEqual(judge(attempts([0, 200], [0, 200], [5, 204])), [], 'PROCESSING, then PAID');
    assert.deepEqual(judge(attempts([0, 200])), [], 'one delivery');
  });

  it('orders attempts by arrival, whatever order they are listed in', () => {
    const [first, second] = attempts([0, 503], [1_200, 200]);
    assert.ok(first !== undefined && second !== undefined);
    assert.deepEqual(judge([second, first]), []);
  });

  it('is not judged when nothing reached the address', () => {
    assert.equal(
      webhookRetryPace.unjudgeable({ attempts: [] }),
      'no request reached the address (see WEBHOOK-DELIVERED)',
    );
    assert.equal(webhookRetryPace.unjudgeable({ attempts: attempts([0, 200]) }), undefined);
  });
});
