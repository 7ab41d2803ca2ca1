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
import { judging } from '../../src/checks/declare.ts';
import { test } from '../_support/fixtures.ts';
import { headerCaseTests } from '../_support/header-cases.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import { loadSpec } from '../../src/spec/spec.ts';
import type { Recorder } from '../../src/run/recorder.ts';

/** A lifetime can only be judged on a token that was issued. */
function verifyLifetime(verify: Recorder, exchange: Exchange): void {
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

headerCaseTests({
  cases: credentialCases(loadSpec(), 'createToken'),
  tags: ['@negative', '@auth'],
  topic: 'refusal.status',
  note: REFUSAL_NOTE,
  send: (pix, testCase, invent) =>
    pix.requestToken(applyCredentialCase(pix.tokenHeaders(), testCase, undefined, invent)),
});

headerCaseTests({
  cases: plainHeaderCases(loadSpec(), 'createToken'),
  tags: ['@negative', '@auth'],
  topic: 'accept',
  note: ACCEPT_NOTE,
  send: (pix, testCase) =>
    pix.requestToken(applyPlainHeaderCase(pix.tokenHeaders(), testCase), [NOT_ACCEPTABLE]),
});
