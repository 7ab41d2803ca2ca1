/**
 * §2.1 check_code: true makes the service refuse a second record with the same code; false skips
 * that check; the default when it is left out is not shown and only observed.
 */
import type { Check } from '../_support/checks/check.ts';
import {
  checkCodeDefault,
  duplicateAllowedWhenUnchecked,
  duplicateRefusedWhenChecked,
  type DuplicatePair,
} from '../_support/checks/check-code.ts';
import { paymentAccepted } from '../_support/checks/payment.ts';
import { test } from '../_support/fixtures.ts';
import type { PixClient } from '../_support/pix-client.ts';
import type { Verifier } from '../_support/verifier.ts';

/** Sends a withdrawal and then a second one with the same code; check_code undefined leaves the field out. */
async function sendDuplicate(
  pix: PixClient,
  verify: Verifier,
  check: Check<DuplicatePair>,
  checkCode: boolean | undefined,
): Promise<DuplicatePair> {
  const headers = await pix.paymentHeaders([check]);
  const first = await pix.newWithdrawal();
  const second = await pix.newWithdrawal();
  const body = (postBackUrl: string): string =>
    JSON.stringify({ ...first.body, PostBackUrl: postBackUrl, check_code: checkCode });
  const firstExchange = await pix.withdraw(check.id, first, headers, body(first.url));
  if (firstExchange.response.status !== 200) {
    verify.skip(
      [check],
      `the first withdrawal was not accepted (${firstExchange.response.status}), so a duplicate proves nothing; see ${paymentAccepted.id}`,
    );
  }
  // The duplicate reuses the first code on purpose: the ledger records it under that code too.
  const secondExchange = await pix.withdraw(
    check.id,
    { ...second, code: first.code },
    headers,
    body(second.url),
  );
  return { first: firstExchange, second: secondExchange };
}

test(
  'with check_code true, refuses a second withdrawal with the same code (§2.1)',
  { tag: ['@payout', '@mutating'] },
  async ({ pix, verify }) => {
    verify.requires([duplicateRefusedWhenChecked]);
    const pair = await sendDuplicate(pix, verify, duplicateRefusedWhenChecked, true);
    verify.check(duplicateRefusedWhenChecked, pair, pair.second);
  },
);

test(
  'with check_code false, accepts a second withdrawal with the same code (§2.1)',
  { tag: ['@payout', '@mutating'] },
  async ({ pix, verify }) => {
    verify.requires([duplicateAllowedWhenUnchecked]);
    const pair = await sendDuplicate(pix, verify, duplicateAllowedWhenUnchecked, false);
    verify.check(duplicateAllowedWhenUnchecked, pair, pair.second);
  },
);

test(
  'records what the service does with a repeated code when check_code is left out (§2.1, not shown)',
  { tag: ['@payout', '@mutating'] },
  async ({ pix, verify }) => {
    verify.requires([duplicateRefusedWhenChecked]);
    const { second } = await sendDuplicate(pix, verify, duplicateRefusedWhenChecked, undefined);
    verify.observe('check_code.default', '§2.1 (not shown)', checkCodeDefault(second));
  },
);
