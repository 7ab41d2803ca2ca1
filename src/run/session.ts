/**
 * What a worker keeps between its tests: one access token, obtained on first use, and the counter
 * that makes each withdrawal code unique in the run (the run id makes it unique across runs, also
 * when PIX_SEED replays the invented part).
 */
import type { Config } from '../config/config.ts';
import type { Operations } from '../transport/operations.ts';
import { tokenHeaders, withdrawalCode } from '../spec/requests.ts';

export type TokenResult = { token: string } | { failure: string };

export interface WorkerSession {
  token(): Promise<TokenResult>;
  /** A code no other withdrawal of the run has, ending in the invented tag. */
  nextCode(tag: string): string;
}

export function workerSession(
  operations: Operations,
  config: Config,
  runId: string,
  workerIndex: number,
): WorkerSession {
  let pending: Promise<TokenResult> | undefined;
  let counter = 0;
  const obtain = async (): Promise<TokenResult> => {
    try {
      const exchange = await operations.createToken(tokenHeaders(config));
      const token = operations.tokenIn(exchange);
      return exchange.response.status === 200 && token !== undefined && token !== ''
        ? { token }
        : {
            failure: `the token request answered ${exchange.response.status} without a token at '${config.tokenField}'`,
          };
    } catch (error) {
      return { failure: error instanceof Error ? error.message : String(error) };
    }
  };
  return {
    nextCode: (tag) => withdrawalCode(config.codePrefix, runId, workerIndex, ++counter, tag),
    token: () => (pending ??= obtain()),
  };
}
