/**
 * §2.1 check_code true, over time: the run's first withdrawal (global setup, check_code true) is sent
 * again from the run's last file, long after it was accepted and its webhook arrived. A provider whose
 * duplicate memory expires accepts it and pays twice. The delay is the run's own length (tens of seconds
 * at a remote environment), and at least LATER_DUPLICATE_GAP_MS: a shorter run waits out the rest.
 */
import { existsSync, readFileSync } from 'node:fs';
import { paymentAccepted } from '../../src/checks/bodies.ts';
import {
  LATER_DUPLICATE_GAP_MS,
  type LaterDuplicate,
  laterDuplicateObservation,
  laterDuplicateRefused,
} from '../../src/checks/check-code.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import { acceptedCode } from '../../src/report/withdrawals.ts';
import type { PixClient } from '../../src/run/pix-client.ts';
import { firstWithdrawalCode } from '../../src/run/first-withdrawal.ts';
import type { Ledger } from '../../src/run/ledger.ts';
import type { Recorder } from '../../src/run/recorder.ts';
import type { Target } from '../../src/run/target.ts';
import { test } from '../_support/fixtures.ts';

/**
 * Sends the run's first code again, or where the first withdrawal was not accepted (refused, answered 5xx)
 * the run's earliest accepted code; stops the test, SKIPPED, when the run has no accepted code.
 */
async function sendFirstCodeAgain(
  pix: PixClient,
  verify: Recorder,
  target: Target,
  ledger: Ledger,
): Promise<LaterDuplicate> {
  const first = firstWithdrawalCode(target.config.codePrefix, target.runId);
  // No ledger yet: global setup had no token to send the first withdrawal with.
  const lines = existsSync(ledger.path) ? readFileSync(ledger.path, 'utf8') : '';
  const accepted = acceptedCode(lines, target.runId, first);
  if (accepted === undefined)
    return verify.skip(
      [laterDuplicateRefused],
      `no withdrawal of the run was accepted (the first, ${first}, included), so no accepted code is there to send again; see ${paymentAccepted.id}`,
      {
        answer: `no withdrawal of the run was accepted`,
        at: new Date().toISOString(),
        check: paymentAccepted.id,
      },
    );
  const { code, at: firstAccepted } = accepted;
  const remainingMs = LATER_DUPLICATE_GAP_MS - (Date.now() - firstAccepted);
  if (remainingMs > 0)
    await test.step(`waiting ${(remainingMs / 1000).toFixed(1)} s to send ${code} again ${LATER_DUPLICATE_GAP_MS / 1000} s after it was accepted`, () =>
      new Promise<void>((resolve) => setTimeout(resolve, remainingMs)));
  const headers = await pix.paymentHeaders([laterDuplicateRefused]);
  const withdrawal = await pix.newWithdrawal();
  const body = JSON.stringify({ ...withdrawal.body, code, check_code: true });
  const afterMs = Date.now() - firstAccepted;
  // The first withdrawal's code on purpose: the ledger records the copy under it.
  const exchange = await pix.withdraw(laterDuplicateRefused.id, { ...withdrawal, code }, headers, body);
  return { exchange, afterMs, moment: 'near the end of the run' };
}

test(
  titleOf(laterDuplicateRefused.title, laterDuplicateRefused.clause),
  judging({ checks: [laterDuplicateRefused], tags: ['@payout', '@mutating'] }),
  async ({ pix, verify, target, ledger }) => {
    verify.requires([laterDuplicateRefused]);
    const later = await sendFirstCodeAgain(pix, verify, target, ledger);
    verify.check(laterDuplicateRefused, later, later.exchange);
    const { topic, value, note } = laterDuplicateObservation(later);
    verify.observe(topic, laterDuplicateRefused.clause, value, note);
  },
);
