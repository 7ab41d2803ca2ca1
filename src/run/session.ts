/**
 * What a worker keeps between its tests: one access token, obtained on first use, and the counter
 * that makes each withdrawal code unique in the run (the run id makes it unique across runs, also
 * when PIX_SEED replays the invented part).
 */
import type { Config } from '../config/config.ts';
import type { Operations } from '../transport/operations.ts';
import { tokenHeaders, withdrawalCode } from '../spec/requests.ts';
import type { Blocker } from '../checks/vocabulary.ts';
import { sendableInHeader, tokenIssued, tokenUsable } from '../checks/token.ts';
import { blockerOf } from './recorder.ts';

export type TokenResult = { token: string } | { failure: string; blocker: Blocker };

export interface WorkerSession {
  token(): Promise<TokenResult>;
  /**
   * A new token in place of `stale`, the worker's token, which the environment refused although it
   * was issued to this client, as a client renewing on §5.3's interval would get one; with how long
   * the stale one worked. Undefined when `stale` is not the worker's current token (a forged one).
   */
  renew(stale: string): Promise<{ token: string; workedSeconds: number } | undefined>;
  /** A token of this test's own, never used before: what judging a token's reuse needs. */
  fresh(): Promise<TokenResult>;
  /** A code no other withdrawal of the run has, ending in the invented tag. */
  nextCode(tag: string): string;
  /**
   * Whether a withdrawal with every configured credential was accepted in this worker: then a later
   * 401 for a body says something of the body, not of the credentials.
   */
  credentialsAccepted: boolean;
}

export function workerSession(
  operations: Operations,
  config: Config,
  runId: string,
  workerIndex: number,
): WorkerSession {
  let pending: Promise<TokenResult> | undefined;
  let issuedAt = 0;
  let counter = 0;
  const obtain = async (): Promise<TokenResult> => {
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
        ? { token }
        : {
            failure: `the token request answered ${exchange.response.status} without a token at '${config.tokenField}'`,
            blocker: blockerOf(exchange, tokenIssued),
          };
    } catch (error) {
      const failure = error instanceof Error ? error.message : String(error);
      return {
        failure,
        blocker: { answer: 'POST /auth/token got no complete response', at: new Date().toISOString() },
      };
    }
  };
  /** Every token this worker was issued: a refused one of them is renewed, a forged one never. */
  const earlier = new Set<string>();
  const current = (): Promise<TokenResult> => {
    if (pending === undefined) {
      issuedAt = Date.now();
      pending = obtain().then((result) => {
        if ('token' in result) earlier.add(result.token);
        return result;
      });
    }
    return pending;
  };
  return {
    credentialsAccepted: false,
    nextCode: (tag) => withdrawalCode(config.codePrefix, runId, workerIndex, ++counter, tag),
    token: current,
    fresh: obtain,
    renew: async (stale) => {
      const held = await current();
      if (!('token' in held) || !earlier.has(stale)) return undefined;
      const workedSeconds = Math.round((Date.now() - issuedAt) / 1000);
      // Another test renewed it already: the newer token serves.
      if (held.token !== stale) return { token: held.token, workedSeconds };
      pending = undefined;
      const renewed = await current();
      return 'token' in renewed ? { token: renewed.token, workedSeconds } : undefined;
    },
  };
}
