/**
 * §4.1 Create token, §5.1 and §5.4: POST /auth/token with Accept, client_id and cert_client.
 */
import { credentialCases, plainHeaderCases } from '../_support/cases.ts';
import { tokenInField, tokenIssued } from '../_support/checks/token.ts';
import { test } from '../_support/fixtures.ts';
import { applyCredentialCase, applyPlainHeaderCase } from '../_support/requests.ts';
import { loadSpec } from '../_support/spec.ts';

test(
  'issues a token to a valid request, in the field the integrator names (§4.1, §5.1)',
  { tag: ['@smoke', '@auth'] },
  async ({ pix, verify }) => {
    const exchange = await pix.requestToken(pix.tokenHeaders());
    verify.check(tokenIssued, exchange, exchange);
    verify.check(tokenInField, { exchange, field: pix.config.tokenField }, exchange);
  },
);

for (const testCase of credentialCases(loadSpec(), 'createToken')) {
  test(
    `${testCase.check.title.toLowerCase()} (${testCase.check.clause})`,
    { tag: ['@negative', '@auth'] },
    async ({ pix, verify }) => {
      verify.requires([testCase.check]);
      const exchange = await pix.requestToken(applyCredentialCase(pix.tokenHeaders(), testCase, undefined));
      verify.check(testCase.check, exchange, exchange);
      verify.observe(`refusal.status.${testCase.check.id}`, testCase.check.clause, exchange.response.status);
    },
  );
}

for (const testCase of plainHeaderCases(loadSpec(), 'createToken')) {
  test(
    `${testCase.check.title.toLowerCase()} (${testCase.check.clause})`,
    { tag: ['@negative', '@auth'] },
    async ({ pix, verify }) => {
      const headers = applyPlainHeaderCase(pix.tokenHeaders(), testCase);
      // 406 Not Acceptable is a fair answer to an Accept the service cannot satisfy, though §7 does not list it.
      const exchange = await pix.requestToken(headers, [406]);
      verify.check(testCase.check, exchange, exchange);
      verify.observe(`accept.${testCase.check.id}`, testCase.check.clause, exchange.response.status);
    },
  );
}
