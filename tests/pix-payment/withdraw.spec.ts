/**
 * §4.2 Create withdraw and §5.2/§5.3: a valid withdrawal is accepted, and one token serves many.
 */
import { paymentAccepted } from '../_support/checks/payment.ts';
import { TOKEN_REUSE_WITHDRAWALS, tokenReusable } from '../_support/checks/token.ts';
import { test } from '../_support/fixtures.ts';
import type { Exchange } from '../_support/exchange.ts';

test(
  'accepts a valid withdrawal with every credential and every field of §2.1 (§4.2)',
  { tag: ['@smoke', '@payout', '@mutating'] },
  async ({ pix, verify }) => {
    verify.requires([paymentAccepted]);
    const headers = await pix.paymentHeaders([paymentAccepted]);
    const { exchange } = await pix.withdrawNew(paymentAccepted.id, headers);
    verify.check(paymentAccepted, exchange, exchange);
  },
);

test(
  `one token authorises ${TOKEN_REUSE_WITHDRAWALS} withdrawals in a row (§5.3, §5.2)`,
  { tag: ['@auth', '@payout', '@mutating'] },
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
