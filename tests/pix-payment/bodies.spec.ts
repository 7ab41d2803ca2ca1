/**
 * §2.1 and §7: withdraw request bodies that break the document's types are refused; where the
 * document is silent the suite only warns. Cases are generated from the spec's WithdrawRequest.
 */
import { bodyCases } from '../_support/cases.ts';
import { test } from '../_support/fixtures.ts';
import { applyBodyMutation } from '../_support/requests.ts';
import { loadSpec } from '../_support/spec.ts';

for (const testCase of bodyCases(loadSpec())) {
  test(
    `${testCase.check.title.toLowerCase()} (${testCase.check.clause})`,
    { tag: ['@negative', '@payout', '@mutating'] },
    async ({ pix, verify }) => {
      verify.requires([testCase.check]);
      const headers = await pix.paymentHeaders([testCase.check]);
      const withdrawal = await pix.newWithdrawal();
      const exchange = await pix.withdraw(
        testCase.check.id,
        withdrawal,
        headers,
        applyBodyMutation(withdrawal.body, testCase.mutation),
      );
      verify.check(testCase.check, exchange, exchange);
    },
  );
}
