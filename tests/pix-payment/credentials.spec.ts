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
import { credentialCases, REFUSAL_NOTE } from '../../src/checks/credentials.ts';
import { credentialEvidence, sendCredentialCase } from '../_support/credential-cases.ts';
import { headerCaseTests, ONE_EXCHANGE } from '../_support/header-cases.ts';
import { loadSpec } from '../../src/spec/spec.ts';

headerCaseTests({
  cases: credentialCases(loadSpec(), 'createWithdraw'),
  tags: ['@negative', '@auth', '@payout', '@mutating'],
  topic: 'refusal.status',
  note: REFUSAL_NOTE,
  send: async (pix, testCase, invent) => {
    const token = await pix.token([testCase.check]);
    const headers = await pix.paymentHeaders([testCase.check]);
    return sendCredentialCase(
      headers,
      testCase,
      token,
      invent,
      async (sent) => (await pix.withdrawNew(testCase.check.id, sent)).exchange,
    );
  },
  evidence: credentialEvidence,
});

headerCaseTests({
  cases: plainHeaderCases(loadSpec(), 'createWithdraw'),
  tags: ['@negative', '@payout', '@mutating'],
  topic: 'accept',
  note: ACCEPT_NOTE,
  send: async (pix, testCase) => {
    const headers = applyPlainHeaderCase(await pix.paymentHeaders([testCase.check]), testCase);
    return (await pix.withdrawNew(testCase.check.id, headers, [NOT_ACCEPTABLE])).exchange;
  },
  ...ONE_EXCHANGE,
});
