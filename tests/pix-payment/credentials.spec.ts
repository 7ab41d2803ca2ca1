/**
 * §4.2, §5.2 and §5.4: a withdrawal with a missing or wrong credential is refused, one header at a
 * time; the cases are generated from the spec's security requirements and header table.
 */
import { credentialCases, plainHeaderCases } from '../_support/cases.ts';
import { test } from '../_support/fixtures.ts';
import { applyCredentialCase, applyPlainHeaderCase } from '../_support/requests.ts';
import { loadSpec } from '../_support/spec.ts';

for (const testCase of credentialCases(loadSpec(), 'createWithdraw')) {
  test(
    `${testCase.check.title.toLowerCase()} (${testCase.check.clause})`,
    { tag: ['@negative', '@auth', '@payout', '@mutating'] },
    async ({ pix, verify }) => {
      verify.requires([testCase.check]);
      const token = await pix.token([testCase.check]);
      const headers = applyCredentialCase(await pix.paymentHeaders([testCase.check]), testCase, token);
      const { exchange } = await pix.withdrawNew(testCase.check.id, headers);
      verify.check(testCase.check, exchange, exchange);
      verify.observe(`refusal.status.${testCase.check.id}`, testCase.check.clause, exchange.response.status);
    },
  );
}

for (const testCase of plainHeaderCases(loadSpec(), 'createWithdraw')) {
  test(
    `${testCase.check.title.toLowerCase()} (${testCase.check.clause})`,
    { tag: ['@negative', '@payout', '@mutating'] },
    async ({ pix, verify }) => {
      verify.requires([testCase.check]);
      const valid = await pix.paymentHeaders([testCase.check]);
      const headers = applyPlainHeaderCase(valid, testCase);
      // 406 Not Acceptable is a fair answer to an Accept the service cannot satisfy, though §7 does not list it.
      const { exchange } = await pix.withdrawNew(testCase.check.id, headers, [406]);
      verify.check(testCase.check, exchange, exchange);
      verify.observe(`accept.${testCase.check.id}`, testCase.check.clause, exchange.response.status);
    },
  );
}
