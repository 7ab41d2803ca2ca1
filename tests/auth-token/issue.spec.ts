/**
 * §4.1 Create token, §5.1 and §5.4: POST /auth/token with Accept, client_id and cert_client.
 */
import {
  ACCEPT_NOTE,
  applyPlainHeaderCase,
  NOT_ACCEPTABLE,
  plainHeaderCases,
} from '../../src/checks/accept.ts';
import { credentialCases, REFUSAL_NOTE } from '../../src/checks/credentials.ts';
import { credentialEvidence, sendCredentialCase } from '../_support/credential-cases.ts';
import { tokenInField, tokenIssued, tokenLifetime, tokenSize, tokenUsable } from '../../src/checks/token.ts';
import { judging } from '../../src/checks/declare.ts';
import { test } from '../_support/fixtures.ts';
import { headerCaseTests, ONE_EXCHANGE } from '../_support/header-cases.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import { loadSpec } from '../../src/spec/spec.ts';
import { blockerOf, type Recorder } from '../../src/run/recorder.ts';

/** What the token's own checks judge; none of them can be judged on a token that was not issued. */
const ISSUED_TOKEN_CHECKS = [tokenInField, tokenUsable, tokenSize, tokenLifetime] as const;

/**
 * A refusal carries no token: judging its body for one would blame PIX_TOKEN_FIELD for what
 * TOKEN-ISSUED already found, so the token's checks wait for a 200.
 */
function verifyIssuedToken(verify: Recorder, exchange: Exchange, field: string): void {
  if (exchange.response.status !== 200) {
    verify.skipSome(
      ISSUED_TOKEN_CHECKS,
      `no token was issued (${exchange.response.status}); see TOKEN-ISSUED`,
      blockerOf(exchange, tokenIssued),
    );
    return;
  }
  for (const check of [tokenInField, tokenUsable, tokenSize])
    verify.check(check, { exchange, field }, exchange);
  verify.check(tokenLifetime, exchange, exchange);
}

test(
  'issues a token to a valid request, in the field the integrator names, that a header can carry, for the renewal interval (§4.1, §5.1, §5.2, §5.3)',
  judging({ checks: [tokenIssued, ...ISSUED_TOKEN_CHECKS], tags: ['@smoke', '@auth'] }),
  async ({ pix, verify }) => {
    const exchange = await pix.requestToken(pix.tokenHeaders());
    verify.check(tokenIssued, exchange, exchange);
    verifyIssuedToken(verify, exchange, pix.config.tokenField);
  },
);

headerCaseTests({
  cases: credentialCases(loadSpec(), 'createToken'),
  tags: ['@negative', '@auth'],
  topic: 'refusal.status',
  note: REFUSAL_NOTE,
  send: (pix, testCase, invent) =>
    sendCredentialCase(pix.tokenHeaders(), testCase, undefined, invent, (sent) => pix.requestToken(sent)),
  evidence: credentialEvidence,
});

headerCaseTests({
  cases: plainHeaderCases(loadSpec(), 'createToken'),
  tags: ['@negative', '@auth'],
  topic: 'accept',
  note: ACCEPT_NOTE,
  send: (pix, testCase) =>
    pix.requestToken(applyPlainHeaderCase(pix.tokenHeaders(), testCase), [NOT_ACCEPTABLE]),
  ...ONE_EXCHANGE,
});
