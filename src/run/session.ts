/**
 * What a worker keeps between its tests: the run's access token, held on the run's token desk
 * (transport/token-desk.ts) so that every worker uses the newest one, and the counter that makes each
 * withdrawal code unique in the run (the run id makes it unique across runs, also when PIX_SEED
 * replays the invented part).
 */
import type { Config } from '../config/config.ts';
import type { Operations } from '../transport/operations.ts';
import type { Exchange } from '../evidence/exchange.ts';
import { deskCanHold } from '../transport/shared-gate.ts';
import { WaitBudgetSpent } from '../transport/gate.ts';
import { localDesk, type HeldToken, type TokenDesk } from '../transport/token-desk.ts';
import { tokenHeaders, withdrawalCode } from '../spec/requests.ts';
import type { Blocker } from '../checks/vocabulary.ts';
import { sendableInHeader, tokenIssued, tokenUsable } from '../checks/token.ts';
import { blockerOf } from './recorder.ts';

/** A token, with the answer that issued it when this worker asked for it; or why there is none. */
export type TokenResult = { token: string; exchange?: Exchange } | { failure: string; blocker: Blocker };

/** A token in place of one the environment refused. */
export interface Renewal {
  readonly token: string;
  /** How long the refused token had been issued, in seconds. */
  readonly workedSeconds: number;
  /** True when a newer token had been issued already (a provider keeping one active token revoked it). */
  readonly replaced: boolean;
}

/**
 * Every method sends through `via`, the operations of the caller: a test holding the environment to
 * itself (an exclusive section) sends through its own.
 */
export interface WorkerSession {
  token(via: Operations): Promise<TokenResult>;
  /**
   * A token in place of `stale`, a token issued to this client that the environment refused: the
   * newest of the run when another test has taken one since (sent once more with it, like a client
   * whose token another instance replaced), else a new one, as a client renewing on §5.3's interval
   * would get; always a new one unless `mayReplace`. Undefined when `stale` was never issued in this
   * run (a forged token).
   */
  renew(stale: string, via: Operations, mayReplace?: boolean): Promise<Renewal | undefined>;
  /**
   * A token of this test's own, never used before, and never renewed when refused: what judging a
   * token's reuse needs. Shared, it becomes the run's newest (a provider keeping one active token
   * just revoked the one held); kept apart, no other test uses it (what measuring its life needs).
   */
  fresh(via: Operations, share?: boolean): Promise<TokenResult>;
  /** A token issued to the configured credentials by a test of its own: it becomes the run's newest. */
  adopt(token: string): Promise<void>;
  /** A code no other withdrawal of the run has, ending in the invented tag. */
  nextCode(tag: string): string;
  /**
   * Whether a withdrawal with every configured credential was accepted in this worker: then a later
   * 401 for a body says something of the body, not of the credentials.
   */
  credentialsAccepted: boolean;
  /** Whether the environment answered a request of this worker 429: its cases then go one at a time. */
  rateLimited: boolean;
  /** Whether a token of this worker was refused before its time (renew was asked for one). */
  readonly tokenDied: boolean;
  /**
   * Runs `work` after every earlier one given here has settled: withdrawals that renew the token go
   * one at a time, so that a single-use token renewed for one is not spent by another.
   */
  inTurn<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` after every earlier one given here has settled: requests sent again after a 429 go one
   * at a time, so that those a wait held back do not meet the rate limit again all at once.
   */
  resendInTurn<T>(work: () => Promise<T>): Promise<T>;
}

/** A line of work where each waits for the one before it to settle. */
function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let turn: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  };
}

/** Asks for a token with the configured credentials; what went wrong is told, never thrown. */
async function obtain(operations: Operations, config: Config): Promise<TokenResult> {
  try {
    const exchange = await operations.createToken(tokenHeaders(config));
    const token = operations.tokenIn(exchange);
    if (token !== undefined && token !== '' && !sendableInHeader(token))
      return {
        failure: 'the token issued cannot be sent in a header (a control character inside)',
        blocker: {
          ...blockerOf(exchange, tokenUsable),
          answer: 'POST /auth/token issued a token no header can carry',
        },
      };
    return exchange.response.status === 200 && token !== undefined && token !== ''
      ? { token, exchange }
      : {
          failure: `the token request answered ${exchange.response.status} without a token at '${config.tokenField}'`,
          blocker: blockerOf(exchange, tokenIssued),
        };
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error);
    const answer =
      error instanceof WaitBudgetSpent
        ? 'the environment kept answering 429 until the run spent its wait budget'
        : 'POST /auth/token got no complete response';
    return { failure, blocker: { answer, at: new Date().toISOString() } };
  }
}

/**
 * The run's token desk, holding the token pix-certify's credentials check was issued (the run's
 * first) when every worker can use it: their first requests then need no token request of their own,
 * a round trip each at a distance. One no header can carry, or too large to serve, is left out: the
 * workers ask for their own, and the tests judge what they get.
 */
export async function runDesk(issued: HeldToken | undefined): Promise<TokenDesk> {
  const desk = localDesk();
  if (issued !== undefined && sendableInHeader(issued.token) && deskCanHold(issued))
    await desk.issued(issued);
  return desk;
}

export function workerSession(
  desk: TokenDesk,
  config: Config,
  runId: string,
  workerIndex: number,
): WorkerSession {
  /** Every token issued in the run that this worker saw, with when: a refused one is renewed, a forged one never. */
  const issued = new Map<string, number>();
  // A token the desk cannot hold (megabytes) stays this worker's; the run goes on without sharing it.
  const publish = (held: HeldToken): Promise<void> => desk.issued(held).catch(() => undefined);
  const adopt = async (token: string, issuedAt = Date.now()): Promise<void> => {
    issued.set(token, issuedAt);
    await publish({ token, issuedAt });
  };
  const issue = async (via: Operations): Promise<TokenResult> => {
    const issuedAt = Date.now();
    const result = await obtain(via, config);
    if ('token' in result) await adopt(result.token, issuedAt);
    return result;
  };
  let counter = 0;
  /** This worker's own attempt, kept when it failed so that every later test is told the same. */
  let own: Promise<TokenResult> | undefined;
  let tokenDied = false;
  return {
    credentialsAccepted: false,
    rateLimited: false,
    get tokenDied() {
      return tokenDied;
    },
    inTurn: oneAtATime(),
    resendInTurn: oneAtATime(),
    nextCode: (tag) => withdrawalCode(config.codePrefix, runId, workerIndex, ++counter, tag),
    token: async (via) => {
      const held = await desk.current();
      if (held !== undefined) {
        issued.set(held.token, held.issuedAt);
        return { token: held.token };
      }
      own ??= issue(via);
      return own;
    },
    fresh: async (via, share = true) => {
      const issuedAt = Date.now();
      const result = await obtain(via, config);
      if (share && 'token' in result) await publish({ token: result.token, issuedAt });
      return result;
    },
    adopt: (token) => adopt(token),
    renew: async (stale, via, mayReplace = true) => {
      const staleSince = issued.get(stale);
      if (staleSince === undefined) return undefined;
      tokenDied = true;
      const workedSeconds = Math.round((Date.now() - staleSince) / 1000);
      const held = await desk.current();
      if (mayReplace && held !== undefined && held.token !== stale) {
        issued.set(held.token, held.issuedAt);
        return { token: held.token, workedSeconds, replaced: true };
      }
      own = issue(via);
      const renewed = await own;
      return 'token' in renewed ? { token: renewed.token, workedSeconds, replaced: false } : undefined;
    },
  };
}
