/**
 * §4.1 Create token, §5.1 and §5.4: POST /auth/token with Accept, client_id and cert_client.
 */
import {
  ACCEPT_NOTE,
  applyPlainHeaderCase,
  NOT_ACCEPTABLE,
  plainHeaderCases,
} from '../../src/checks/accept.ts';
import { applyCredentialCase, credentialCases, REFUSAL_NOTE } from '../../src/checks/credentials.ts';
import { tokenInField, tokenIssued, tokenLifetime } from '../../src/checks/token.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import { test } from '../_support/fixtures.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import { loadSpec } from '../../src/spec/spec.ts';
import type { Verifier } from '../../src/run/recorder.ts';

/** A lifetime can only be judged on a token that was issued. */
function verifyLifetime(verify: Verifier, exchange: Exchange): void {
  if (exchange.response.status === 200) verify.check(tokenLifetime, exchange, exchange);
  else
    verify.skipSome([tokenLifetime], `no token was issued (${exchange.response.status}); see TOKEN-ISSUED`);
}

test(
  'issues a token to a valid request, in the field the integrator names, for the renewal interval (§4.1, §5.1, §5.3)',
  judging({ checks: [tokenIssued, tokenInField, tokenLifetime], tags: ['@smoke', '@auth'] }),
  async ({ pix, verify }) => {
    const exchange = await pix.requestToken(pix.tokenHeaders());
    verify.check(tokenIssued, exchange, exchange);
    verify.check(tokenInField, { exchange, field: pix.config.tokenField }, exchange);
    verifyLifetime(verify, exchange);
  },
);

for (const testCase of credentialCases(loadSpec(), 'createToken')) {
  const { check } = testCase;

  test(
    titleOf(check.title, check.clause),
    judging({ checks: [check], tags: ['@negative', '@auth'] }),
    async ({ pix, verify, invent }) => {
      verify.requires([check]);
      const headers = applyCredentialCase(pix.tokenHeaders(), testCase, undefined, invent);
      const exchange = await pix.requestToken(headers);
      verify.check(check, exchange, exchange);
      verify.observe(`refusal.status.${check.id}`, check.clause, exchange.response.status, REFUSAL_NOTE);
    },
  );
}

for (const testCase of plainHeaderCases(loadSpec(), 'createToken')) {
  const { check } = testCase;

  test(
    titleOf(check.title, check.clause),
    judging({ checks: [check], tags: ['@negative', '@auth'] }),
    async ({ pix, verify }) => {
      const exchange = await pix.requestToken(applyPlainHeaderCase(pix.tokenHeaders(), testCase), [
        NOT_ACCEPTABLE,
      ]);
      verify.check(check, exchange, exchange);
      verify.observe(`accept.${check.id}`, check.clause, exchange.response.status, ACCEPT_NOTE);
    },
  );
}
