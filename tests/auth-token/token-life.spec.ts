/**
 * §5.3 and §5 (not shown): whether a newer token ends an earlier one, and (PIX_TOKEN_LIFETIME_PROBE_S)
 * how long a token is accepted. Each use of a token sends a withdrawal whose body the provider must
 * refuse (a JSON array, §4.2), read against the same request with a forged token and with a token
 * just issued, so that "token refused" and "body refused" are told apart. A provider that answers a
 * forged token with anything but 401 or 403 to that body reads the body first: then the tokens are
 * used with a valid withdrawal instead (the plan counts every one of these requests as a possible
 * payout either way).
 */
import { paymentAccepted } from '../../src/checks/bodies.ts';
import { forgeToken } from '../../src/checks/credentials.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import {
  statedLifetime,
  tokenFate,
  tokenLifetime,
  tokenSurvivesNewer,
  type TokenFate,
  type TokenUseReading,
} from '../../src/checks/token.ts';
import { configOfThisProcess } from '../../src/config/config.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import type { PixClient } from '../../src/run/pix-client.ts';
import type { NewWithdrawal } from '../../src/run/payouts.ts';
import { blockerOf, type Recorder } from '../../src/run/recorder.ts';
import type { Inventor } from '../../src/spec/invent.ts';
import { paymentHeaders } from '../../src/spec/requests.ts';
import { test } from '../_support/fixtures.ts';

/** A body §4.2 makes a bad request: JSON, but no object. */
const MUST_REFUSE_BODY = '[]';

const probeSeconds = configOfThisProcess().tokenLifetimeProbeS;
/** What the test judges: the probe's check only when it is on, so that a probe left off is out of the selection. */
const JUDGED = probeSeconds === undefined ? [tokenSurvivesNewer] : [tokenSurvivesNewer, tokenLifetime];

/** How the tokens are used, and how their answers read. */
interface TokenUse {
  readonly body: (withdrawal: NewWithdrawal) => string;
  readonly reading: TokenUseReading;
}

/** Sends one withdrawal with `token` and the use's body. */
async function useToken(
  pix: PixClient,
  token: string,
  body: (w: NewWithdrawal) => string,
): Promise<Exchange> {
  const withdrawal = await pix.newWithdrawal();
  return pix.withdraw(tokenSurvivesNewer.id, withdrawal, paymentHeaders(pix.config, token), body(withdrawal));
}

/**
 * With no other token issued meanwhile (the other tests' withdrawals go on): a forged token's answer
 * while the first token is issued, then the second, neither shared with other tests (a provider
 * whose tokens serve once would see them used); then, together, the first token used after the
 * second was issued and the second (just issued) used as the reading of a good token.
 */
async function firstAfterNewer(
  pix: PixClient,
  invent: Inventor,
): Promise<{ use: TokenUse; first: Exchange; fate: TokenFate }> {
  const mustRefuse = (): string => MUST_REFUSE_BODY;
  // The forged token is the worker's own, altered: any token of this client has the shape to forge.
  const forging = pix
    .token([tokenSurvivesNewer])
    .then((real) => useToken(pix, forgeToken(real, invent), mustRefuse));
  const [forged, first] = await Promise.all([forging, pix.freshToken([tokenSurvivesNewer], false)]);
  const newest = await pix.freshToken([tokenSurvivesNewer], false);
  const readsToken = [401, 403].includes(forged.response.status);
  const body = readsToken ? mustRefuse : (w: NewWithdrawal): string => JSON.stringify(w.body);
  const [firstAnswer, newestAnswer] = await Promise.all([
    useToken(pix, first.token, body),
    useToken(pix, newest.token, body),
  ]);
  const use: TokenUse = {
    body,
    reading: {
      forged: readsToken ? [forged.response.status] : [401, 403],
      fresh: newestAnswer.response.status,
    },
  };
  return { use, first: firstAnswer, fate: tokenFate(firstAnswer.response.status, use.reading) };
}

/** Why a fate cannot be judged, or undefined when it can. */
function unreadable(fate: TokenFate, answer: Exchange, reading: TokenUseReading): string | undefined {
  if (fate === 'fresh-refused')
    return `a token just issued was refused (${reading.fresh}) as a forged one was, so no use of a token can be read; check PIX_CLIENT_SECRET, see ${paymentAccepted.id}`;
  if (fate === 'unclear')
    return `the token's use was answered ${answer.response.status}, neither as a token just issued (${reading.fresh}) nor as a forged one (${reading.forged.join(' or ')}), so whether the token was accepted is unknown`;
  return undefined;
}

/**
 * The probe: a token kept apart (no other test uses it, so a provider sliding expiry with use
 * cannot stretch it), used once, `seconds` after it was issued.
 */
async function probeLifetime(
  pix: PixClient,
  verify: Recorder,
  use: TokenUse,
  seconds: number,
): Promise<void> {
  const kept = await pix.freshToken([tokenLifetime], false);
  await new Promise((done) => setTimeout(done, Math.max(0, kept.issuedAt + seconds * 1000 - Date.now())));
  const usedAt = Date.now();
  const answer = await useToken(pix, kept.token, use.body);
  const ageSeconds = Math.round((usedAt - kept.issuedAt) / 1000);
  const fate = tokenFate(answer.response.status, use.reading);
  const why = unreadable(fate, answer, use.reading);
  if (why !== undefined) {
    verify.skipSome([tokenLifetime], why, blockerOf(answer));
    return;
  }
  if (fate === 'accepted') {
    verify.observe(
      'token.lifetime-probe',
      '§5.3, §5 (not shown)',
      { ageSeconds, accepted: true },
      `a token kept apart was accepted at ${ageSeconds} s, used once (PIX_TOKEN_LIFETIME_PROBE_S=${seconds})`,
    );
    return;
  }
  const statedSeconds = kept.exchange === undefined ? undefined : statedLifetime(kept.exchange);
  verify.check(tokenLifetime, { ageSeconds, statedSeconds }, answer);
  verify.observe(
    'token.lifetime-probe',
    '§5.3, §5 (not shown)',
    { ageSeconds, accepted: false, ...(statedSeconds === undefined ? {} : { statedSeconds }) },
    `a token kept apart was refused at ${ageSeconds} s, used once (PIX_TOKEN_LIFETIME_PROBE_S=${seconds})`,
  );
}

/** Judges survival alone, then, when the probe is on, the token's life. */
async function verifyTokenLife(pix: PixClient, verify: Recorder, invent: Inventor): Promise<void> {
  // The probe waits its seconds on top of the requests' own bound.
  if (probeSeconds !== undefined) test.setTimeout(probeSeconds * 1000 + 60_000);
  const { use, first, fate } = await pix.holdingTokens((held) => firstAfterNewer(held, invent));
  const why = unreadable(fate, first, use.reading);
  if (why !== undefined) verify.skip(JUDGED, why, blockerOf(first, paymentAccepted));
  verify.check(
    tokenSurvivesNewer,
    { fate: fate === 'accepted' ? 'accepted' : 'refused', answer: first },
    first,
  );
  if (probeSeconds === undefined) return;
  if (fate === 'refused')
    verify.skip(
      [tokenLifetime],
      'the provider ended a token when a newer one was issued, and the run issues tokens while the probe waits, so its lifetime cannot be measured here: run pix-certify lifetime, which issues none meanwhile',
      { ...blockerOf(first), check: tokenSurvivesNewer.id },
    );
  await probeLifetime(pix, verify, use, probeSeconds);
}

test(
  titleOf(tokenSurvivesNewer.title, tokenSurvivesNewer.clause),
  judging({ checks: JUDGED, tags: ['@auth', '@payout', '@mutating'] }),
  async ({ pix, verify, invent }) => {
    verify.requires([tokenSurvivesNewer]);
    await verifyTokenLife(pix, verify, invent);
  },
);
