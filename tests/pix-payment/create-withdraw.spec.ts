/**
 * §4.2 Create withdraw and §5.2/§5.3: a valid withdrawal is accepted, and one token serves many.
 * The reuse test comes first: its withdrawals go one after another, and dispatched before the
 * credentials' families it runs beside tests that fill the run's other slots (src/run/playwright-options.ts).
 */
import { paymentAccepted } from '../../src/checks/bodies.ts';
import { TOKEN_REUSE_WITHDRAWALS, tokenReusable } from '../../src/checks/token.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import { test } from '../_support/fixtures.ts';
import { blockerOf, type Recorder } from '../../src/run/recorder.ts';
import type { PixClient } from '../../src/run/pix-client.ts';

/**
 * Withdrawals one after another with one token. Reuse is judged from an accepted first use: a first
 * withdrawal refused for any reason is PAYMENT-ACCEPTED's finding, and says nothing of a second use.
 */
async function sendWithOneToken(pix: PixClient, verify: Recorder): Promise<Exchange[]> {
  // A token of its own, kept from other tests: the worker's token may have served them already, and
  // other tests' uses of this one would count against it at a provider whose tokens serve a few times.
  const headers = await pix.freshPaymentHeaders([tokenReusable], false);
  const exchanges: Exchange[] = [];
  // Sequential on purpose: reuse means one request after another with the same token.
  for (let i = 0; i < TOKEN_REUSE_WITHDRAWALS; i++) {
    const { exchange } = await pix.withdrawNew(tokenReusable.id, headers);
    exchanges.push(exchange);
    if (i === 0 && exchange.response.status !== 200)
      verify.skip(
        [tokenReusable],
        `the first withdrawal with the token was answered ${exchange.response.status}, not accepted, so its reuse cannot be judged; see ${paymentAccepted.id}`,
        blockerOf(exchange, paymentAccepted),
      );
  }
  return exchanges;
}

test(
  titleOf(tokenReusable.title, tokenReusable.clause),
  judging({ checks: [tokenReusable], tags: ['@auth', '@payout', '@mutating'] }),
  async ({ pix, verify }) => {
    verify.requires([tokenReusable]);
    // No token issued elsewhere meanwhile: one could revoke this one, which is not what reuse asks.
    const exchanges = await pix.holdingTokens((held) => sendWithOneToken(held, verify));
    verify.check(tokenReusable, exchanges, exchanges.find((e) => e.response.status !== 200) ?? exchanges[0]);
  },
);

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
