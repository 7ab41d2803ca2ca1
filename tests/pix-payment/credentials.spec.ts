/**
 * §4.2, §5.2 and §5.4: a withdrawal with a missing or wrong credential is refused, one header at a
 * time; the cases are generated from the spec's security requirements and header table.
 */
import {
  ACCEPT_NOTE,
  applyPlainHeaderCase,
  NOT_ACCEPTABLE,
  plainHeaderCases,
} from '../../src/checks/accept.ts';
import { applyCredentialCase, credentialCases, REFUSAL_NOTE } from '../../src/checks/credentials.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import { test } from '../_support/fixtures.ts';
import { loadSpec } from '../../src/spec/spec.ts';

for (const testCase of credentialCases(loadSpec(), 'createWithdraw')) {
  const { check } = testCase;

  test(
    titleOf(check.title, check.clause),
    judging({ checks: [check], tags: ['@negative', '@auth', '@payout', '@mutating'] }),
    async ({ pix, verify, invent }) => {
      verify.requires([check]);
      const token = await pix.token([check]);
      const headers = applyCredentialCase(await pix.paymentHeaders([check]), testCase, token, invent);
      const { exchange } = await pix.withdrawNew(check.id, headers);
      verify.check(check, exchange, exchange);
      verify.observe(`refusal.status.${check.id}`, check.clause, exchange.response.status, REFUSAL_NOTE);
    },
  );
}

for (const testCase of plainHeaderCases(loadSpec(), 'createWithdraw')) {
  const { check } = testCase;

  test(
    titleOf(check.title, check.clause),
    judging({ checks: [check], tags: ['@negative', '@payout', '@mutating'] }),
    async ({ pix, verify }) => {
      verify.requires([check]);
      const headers = applyPlainHeaderCase(await pix.paymentHeaders([check]), testCase);
      const { exchange } = await pix.withdrawNew(check.id, headers, [NOT_ACCEPTABLE]);
      verify.check(check, exchange, exchange);
      verify.observe(`accept.${check.id}`, check.clause, exchange.response.status, ACCEPT_NOTE);
    },
  );
}
