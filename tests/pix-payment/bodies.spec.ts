/**
 * §2.1 and §7: withdraw request bodies that break the document's types are refused; where the
 * document is silent the suite only warns. Cases are generated from the spec's WithdrawRequest. Each
 * case is a withdrawal of its own that depends on no other, so a family's cases are sent together
 * (within the run's gate), each judged on its own request.
 */
import { applyBodyMutation, bodyCases, type BodyCase } from '../../src/checks/bodies.ts';
import { silentValueCases } from '../../src/checks/silent-values.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import { test } from '../_support/fixtures.ts';
import { loadSpec } from '../../src/spec/spec.ts';

const FAMILIES: readonly { title: string; clause: string; cases: readonly BodyCase[] }[] = [
  {
    title: 'Refuses each withdrawal whose body breaks a type of §2.1, or is no JSON object',
    clause: '§2.1, §4.2, §7',
    cases: bodyCases(loadSpec()),
  },
  {
    title: 'Refuses each withdrawal whose body leaves out a field or holds a value no payment can have',
    clause: '§2.1 (not shown), §6, §8 (not shown)',
    cases: silentValueCases(loadSpec()),
  },
];

for (const { title, clause, cases } of FAMILIES) {
  test(
    titleOf(title, clause),
    judging({ checks: cases.map((c) => c.check), tags: ['@negative', '@payout', '@mutating'] }),
    async ({ together }) => {
      await together(cases, async ({ check, mutation }, { pix, verify }) => {
        const headers = await pix.paymentHeaders([check]);
        const withdrawal = await pix.newWithdrawal();
        const exchange = await pix.withdraw(
          check.id,
          withdrawal,
          headers,
          applyBodyMutation(withdrawal.body, mutation),
        );
        verify.checkBody(check, exchange);
      });
    },
  );
}
