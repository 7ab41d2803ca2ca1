/**
 * §4.2 Create withdraw and §5.2/§5.3: a valid withdrawal is accepted, and one token serves many.
 */
import { paymentAccepted } from '../../src/checks/bodies.ts';
import { TOKEN_REUSE_WITHDRAWALS, tokenReusable } from '../../src/checks/token.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import { test } from '../_support/fixtures.ts';

test(
  titleOf(paymentAccepted.title, '§4.2'),
  judging({ checks: [paymentAccepted], tags: ['@smoke', '@payout', '@mutating'] }),
  async ({ pix, verify }) => {
    verify.requires([paymentAccepted]);
    const headers = await pix.paymentHeaders([paymentAccepted]);
    const { exchange } = await pix.withdrawNew(paymentAccepted.id, headers);
    verify.check(paymentAccepted, exchange, exchange);
  },
);

test(
  titleOf(tokenReusable.title, tokenReusable.clause),
  judging({ checks: [tokenReusable], tags: ['@auth', '@payout', '@mutating'] }),
  async ({ pix, verify }) => {
    verify.requires([tokenReusable]);
    const headers = await pix.paymentHeaders([tokenReusable]);
    const exchanges: Exchange[] = [];
    // Sequential on purpose: reuse means one request after another with the same token.
    for (let i = 0; i < TOKEN_REUSE_WITHDRAWALS; i++) {
      exchanges.push((await pix.withdrawNew(tokenReusable.id, headers)).exchange);
    }
    verify.check(tokenReusable, exchanges, exchanges.find((e) => e.response.status !== 200) ?? exchanges[0]);
  },
);
