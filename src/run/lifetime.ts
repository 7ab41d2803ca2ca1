/**
 * `pix-certify lifetime --max <duration>`: how long the environment accepts a token, measured alone
 * (no other test issues tokens meanwhile). Each token is used once, at its age, with a withdrawal
 * whose body the provider must refuse (a JSON array, §4.2), so that a provider sliding expiry with
 * use cannot stretch what is measured and nothing is paid; the answer is read against a forged
 * token's and a just-issued token's (checks/token.ts, tokenFate). Ages halve down from the maximum.
 * A provider that keeps every token gets one token per age at the start (the run lasts the maximum);
 * one that revokes a token when it issues a newer one gets them one after another (about twice the
 * maximum). The first refusal ends the probe: the lifetime lies between the age before it and its own.
 */
import type { Config } from '../config/config.ts';
import type { Exchange } from '../evidence/exchange.ts';
import { forgeToken } from '../checks/credentials.ts';
import {
  RENEWAL_INTERVAL_SECONDS,
  statedLifetime,
  tokenFate,
  type TokenUseReading,
} from '../checks/token.ts';
import { Inventor } from '../spec/invent.ts';
import { paymentHeaders, tokenHeaders, withdrawalCode } from '../spec/requests.ts';
import { gateSettingsOf, localGate } from '../transport/gate.ts';
import { HttpClient } from '../transport/http.ts';
import { Operations } from '../transport/operations.ts';
import { apiTls } from '../transport/tls.ts';
import { Ledger } from './ledger.ts';
import { Payouts } from './payouts.ts';

/** A body §4.2 makes a bad request: JSON, but no object. */
const MUST_REFUSE_BODY = '[]';
/** The ages, halving down from the maximum: at most this many, none under a second. */
const MOST_AGES = 8;

/** The ages at which tokens are used, shortest first: the maximum, its half, its quarter… */
export function agesUpTo(maxSeconds: number): number[] {
  const ages: number[] = [];
  for (let age = maxSeconds; age >= 1 && ages.length < MOST_AGES; age /= 2) ages.unshift(Math.round(age));
  return [...new Set(ages)];
}

/** Withdrawal requests the probe sends at most: the forged and the fresh reading, the revocation test, one per age. */
export const lifetimeRequests = (maxSeconds: number): number => 3 + agesUpTo(maxSeconds).length;

export interface AgeResult {
  readonly ageSeconds: number;
  readonly accepted: boolean;
}

export interface LifetimeResult {
  readonly maxSeconds: number;
  /** What the token response states (expires_in), if anything. */
  readonly statedSeconds: number | undefined;
  /** Whether issuing a token ended an earlier one (then the tokens went one after another). */
  readonly revokes: boolean;
  readonly ages: readonly AgeResult[];
  /** Stopped by the person running it (Ctrl-C) before the last age. */
  readonly interrupted: boolean;
  /** Why nothing could be measured, when nothing could. */
  readonly unmeasurable?: string;
}

/** The result in one sentence, and whether it is a finding (a token refused before the renewal interval). */
export function describeLifetime(result: LifetimeResult): { line: string; warning: boolean } {
  if (result.unmeasurable !== undefined)
    return { line: `not measured: ${result.unmeasurable}`, warning: false };
  const lastAccepted = result.ages.filter((a) => a.accepted).at(-1)?.ageSeconds;
  const refused = result.ages.find((a) => !a.accepted)?.ageSeconds;
  const stated =
    result.statedSeconds === undefined ? 'no stated lifetime' : `expires_in ${result.statedSeconds}`;
  const upTo =
    lastAccepted === undefined ? 'never accepted at any age tried' : `accepted at ${lastAccepted} s`;
  if (refused !== undefined) {
    const warning = refused < RENEWAL_INTERVAL_SECONDS;
    const between =
      lastAccepted === undefined ? `before ${refused} s` : `between ${lastAccepted} s and ${refused} s`;
    return {
      line: `a token is ${upTo} and refused at ${refused} s: it stops being accepted ${between} (${stated})${warning ? `, before the ${RENEWAL_INTERVAL_SECONDS} s renewal interval: TOKEN-LIFETIME-COVERS-RENEWAL WARNING` : ''}`,
      warning,
    };
  }
  const end = result.interrupted ? 'interrupted then' : `the maximum asked (${result.maxSeconds} s)`;
  return { line: `a token is ${upTo}, ${end}; no refusal seen (${stated})`, warning: false };
}

export interface LifetimeOptions {
  readonly maxSeconds: number;
  readonly runId: string;
  /** Its own directory: the ledger goes there, never into a certification's. */
  readonly dir: string;
  readonly progress: (line: string) => void;
  /** Ctrl-C: stop waiting and return what was measured. */
  readonly signal: AbortSignal;
}

/** A token issued now, and when. */
interface Issued {
  readonly token: string;
  readonly issuedAt: number;
  readonly exchange: Exchange;
}

/** Sleeps until `at`, or less when the signal aborts. */
function waitUntil(at: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(finish, Math.max(0, at - Date.now()));
    function finish(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      done();
    }
    signal.addEventListener('abort', finish);
  });
}

/** A probe's length as a person reads it: seconds under two minutes, then minutes, then hours. */
export function aboutDuration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3_600).toFixed(1)} h`;
}

/** Measures; the caller has checked that the configuration allows it (live, PIX_ALLOW_PAYOUTS=1, the budget). */
export async function measureLifetime(config: Config, options: LifetimeOptions): Promise<LifetimeResult> {
  const client = new HttpClient({
    maxResponseBytes: config.maxResponseBytes,
    tokenField: config.tokenField,
    tls: apiTls(config.tls),
  });
  const operations = new Operations(client, {
    baseUrl: config.baseUrl ?? '',
    gate: localGate(gateSettingsOf(config), options.progress),
    timeoutMs: config.requestTimeoutMs,
    tokenField: config.tokenField,
  });
  const payouts = new Payouts(
    {
      config,
      baseUrl: config.baseUrl ?? '',
      runId: options.runId,
      webhookControlUrl: '',
      webhookControlToken: '',
      missing: () => undefined,
    },
    new Ledger(options.dir, options.runId),
  );
  let sent = 0;
  const issue = async (): Promise<Issued> => {
    const exchange = await operations.createToken(tokenHeaders(config));
    const token = operations.tokenIn(exchange);
    if (exchange.response.status !== 200 || token === undefined || token === '')
      throw new Error(
        `the token request answered ${exchange.response.status} without a token at '${config.tokenField}'`,
      );
    return { token, issuedAt: Date.now(), exchange };
  };
  const use = (token: string): Promise<Exchange> => {
    sent += 1;
    const code = withdrawalCode(config.codePrefix, options.runId, 0, sent, 'LIFE');
    return payouts.send(
      {
        checkId: 'TOKEN-LIFETIME-COVERS-RENEWAL',
        withdrawal: { code, path: '' },
        url: operations.urlOf('createWithdraw'),
        body: MUST_REFUSE_BODY,
        retry: 0,
      },
      () => operations.createWithdraw(paymentHeaders(config, token), MUST_REFUSE_BODY),
      (answered) => operations.waitAsAsked(answered),
    );
  };
  try {
    return await probe(options, issue, use);
  } finally {
    client.close();
  }
}

async function probe(
  options: LifetimeOptions,
  issue: () => Promise<Issued>,
  use: (token: string) => Promise<Exchange>,
): Promise<LifetimeResult> {
  const { maxSeconds, progress, signal } = options;
  const calibration = await issue();
  const forged = await use(forgeToken(calibration.token, new Inventor([Date.now()])));
  const fresh = await use(calibration.token);
  const statedSeconds = statedLifetime(calibration.exchange);
  const base = { maxSeconds, statedSeconds, ages: [], interrupted: false };
  if (![401, 403].includes(forged.response.status))
    return {
      ...base,
      revokes: false,
      unmeasurable: `a forged token was answered ${forged.response.status}, not 401 or 403, to a body the provider must refuse: it reads the body first, so a refused token cannot be told from a refused body without paying out`,
    };
  const reading: TokenUseReading = { forged: [forged.response.status], fresh: fresh.response.status };
  if (tokenFate(fresh.response.status, reading) === 'fresh-refused')
    return {
      ...base,
      revokes: false,
      unmeasurable: `a token just issued was refused (${fresh.response.status}) as a forged one was: check PIX_CLIENT_SECRET`,
    };
  const first = await issue();
  await issue();
  const revokes = tokenFate((await use(first.token)).response.status, reading) === 'refused';
  const ages = agesUpTo(maxSeconds);
  progress(
    `${revokes ? 'Issuing a token ends the earlier ones: one token at a time' : 'One token per age, issued now'}; ages ${ages.join(', ')} s; about ${aboutDuration(revokes ? ages.reduce((a, b) => a + b, 0) : maxSeconds)} in all. Ctrl-C reports what was measured.`,
  );
  const upfront = revokes ? [] : await Promise.all(ages.map(() => issue()));
  const results: AgeResult[] = [];
  for (const [i, ageSeconds] of ages.entries()) {
    const kept = upfront[i] ?? (await issue());
    await waitUntil(kept.issuedAt + ageSeconds * 1000, signal);
    if (signal.aborted) return { ...base, revokes, ages: results, interrupted: true };
    const fate = tokenFate((await use(kept.token)).response.status, reading);
    if (fate !== 'accepted' && fate !== 'refused')
      return {
        ...base,
        revokes,
        ages: results,
        unmeasurable: `the use at ${ageSeconds} s was answered neither as a fresh token nor as a forged one`,
      };
    results.push({ ageSeconds, accepted: fate === 'accepted' });
    progress(`  ${fate} at ${ageSeconds} s (${i + 1} of ${ages.length})`);
    if (fate === 'refused') break;
  }
  return { ...base, revokes, ages: results };
}
