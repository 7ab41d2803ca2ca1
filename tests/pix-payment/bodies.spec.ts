/**
 * §2.1 and §7: withdraw request bodies that break the document's types are refused; where the
 * document is silent the suite only warns. Cases are generated from the spec's WithdrawRequest.
 */
import { applyBodyMutation, bodyCases } from '../../src/checks/bodies.ts';
import { silentValueCases } from '../../src/checks/silent-values.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import { test } from '../_support/fixtures.ts';
import { loadSpec } from '../../src/spec/spec.ts';

for (const { check, mutation } of [...bodyCases(loadSpec()), ...silentValueCases(loadSpec())]) {
  test(
    titleOf(check.title, check.clause),
    judging({ checks: [check], tags: ['@negative', '@payout', '@mutating'] }),
    async ({ pix, verify }) => {
      verify.requires([check]);
      const headers = await pix.paymentHeaders([check]);
      const withdrawal = await pix.newWithdrawal();
      const exchange = await pix.withdraw(
        check.id,
        withdrawal,
        headers,
        applyBodyMutation(withdrawal.body, mutation),
      );
      verify.checkBody(check, exchange);
    },
  );
}
