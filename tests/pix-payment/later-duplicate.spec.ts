/**
 * §2.1 check_code true, over time: the run's first withdrawal (global setup, check_code true) is sent
 * again from the run's last file, tens of seconds after it was accepted and its webhook arrived. A
 * provider whose duplicate memory expires accepts it and pays twice. No wait of its own: the delay is
 * the run's own length.
 */
import { existsSync, readFileSync } from 'node:fs';
import { paymentAccepted } from '../../src/checks/bodies.ts';
import { type LaterDuplicate, laterDuplicateRefused } from '../../src/checks/check-code.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import { acceptedAt } from '../../src/report/withdrawals.ts';
import type { PixClient } from '../../src/run/pix-client.ts';
import { firstWithdrawalCode } from '../../src/run/first-withdrawal.ts';
import type { Ledger } from '../../src/run/ledger.ts';
import type { Recorder } from '../../src/run/recorder.ts';
import type { Target } from '../../src/run/target.ts';
import { test } from '../_support/fixtures.ts';

/** Sends the run's first code again; stops the test, SKIPPED, when the first withdrawal was not accepted. */
async function sendFirstCodeAgain(
  pix: PixClient,
  verify: Recorder,
  target: Target,
  ledger: Ledger,
): Promise<LaterDuplicate> {
  const code = firstWithdrawalCode(target.config.codePrefix, target.runId);
  // No ledger yet: global setup had no token to send the first withdrawal with.
  const lines = existsSync(ledger.path) ? readFileSync(ledger.path, 'utf8') : '';
  const firstAccepted = acceptedAt(lines, target.runId, code);
  if (firstAccepted === undefined)
    return verify.skip(
      [laterDuplicateRefused],
      `the run's first withdrawal (${code}) was not accepted, so no accepted code is there to send again; see ${paymentAccepted.id}`,
      {
        answer: `the first withdrawal ${code} was not accepted`,
        at: new Date().toISOString(),
        check: paymentAccepted.id,
      },
    );
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
  },
);
