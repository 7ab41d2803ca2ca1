/**
 * The run's first withdrawal, sent by global setup before any test when payouts are allowed: one
 * valid withdrawal with every configured credential (§4.2). The credentials' token request showed
 * PIX_CLIENT_ID and the certificate are taken; only a withdrawal shows whether PIX_CLIENT_SECRET is.
 * Refused with 401 or 403, it is sent once more with a renewed token (the first may have died);
 * refused again, the run stops as a configuration error naming PIX_CLIENT_SECRET, before any other
 * withdrawal: a typo in the secret must not become every withdrawal refused, resent and blamed on
 * the provider (a real provider locks a client after repeated authentication failures). Any other
 * answer is the tests' to judge; the withdrawal is in the ledger like every other, its webhooks too.
 */
import { sendableInHeader } from '../checks/token.ts';
import { ConfigError } from '../config/errors.ts';
import { describeResponse, type Exchange } from '../evidence/exchange.ts';
import { printable } from '../preflight/errors.ts';
import { paymentHeaders, tokenHeaders, validBody, withdrawalCode } from '../spec/requests.ts';
import { TransportError } from '../transport/http.ts';
import type { Operations } from '../transport/operations.ts';
import type { TokenDesk } from '../transport/token-desk.ts';
import type { WebhookClient } from '../webhook/receiver-client.ts';
import type { Payouts } from './payouts.ts';
import type { Target } from './target.ts';

/** What the ledger names as the check the first withdrawal serves. */
export const FIRST_WITHDRAWAL = 'FIRST-WITHDRAWAL';

/** Worker and counter of its code: no worker's withdrawal has counter 0 (session.ts starts at 1). */
const FIRST_CODE = { worker: 0, counter: 0, tag: 'FIRST' } as const;

export interface FirstWithdrawalParts {
  readonly target: Target;
  readonly operations: Operations;
  readonly payouts: Payouts;
  readonly webhooks: WebhookClient;
  /** The run's token desk: the token it holds is used, a renewed one goes onto it. */
  readonly desk: TokenDesk;
}

const refusedForCredentials = (exchange: Exchange): boolean =>
  exchange.response.status === 401 || exchange.response.status === 403;

/** A token issued to the configured credentials now, put on the desk; undefined without a usable one. */
async function newToken(parts: FirstWithdrawalParts): Promise<string | undefined> {
  const { target, operations, desk } = parts;
  const issuedAt = Date.now();
  const exchange = await operations.createToken(tokenHeaders(target.config));
  const token = operations.tokenIn(exchange);
  // One no header can carry is TOKEN-USABLE's to judge; no withdrawal goes with it.
  if (exchange.response.status !== 200 || token === undefined || token === '' || !sendableInHeader(token))
    return undefined;
  await desk.issued({ token, issuedAt });
  return token;
}

/** The first withdrawal's code: fixed by the run, so a test sends it again at the run's end (later-duplicate.spec.ts). */
export function firstWithdrawalCode(prefix: string, runId: string): string {
  return withdrawalCode(prefix, runId, FIRST_CODE.worker, FIRST_CODE.counter, FIRST_CODE.tag);
}

/** Sends the first withdrawal; throws a ConfigError naming PIX_CLIENT_SECRET when it is refused twice. */
export async function sendFirstWithdrawal(parts: FirstWithdrawalParts): Promise<void> {
  const { target, operations, payouts, webhooks, desk } = parts;
  const { config } = target;
  try {
    const token = (await desk.current())?.token ?? (await newToken(parts));
    // No token: TOKEN-ISSUED and the tests tell why; there is no withdrawal to send.
    if (token === undefined) return;
    const code = firstWithdrawalCode(config.codePrefix, target.runId);
    const { path, url } = await webhooks.register({ whole: true });
    const body = JSON.stringify(validBody(config, code, url));
    const send = (bearer: string): Promise<Exchange> =>
      payouts.send(
        {
          checkId: FIRST_WITHDRAWAL,
          withdrawal: { code, path },
          url: operations.urlOf('createWithdraw'),
          body,
          retry: 0,
        },
        () => operations.createWithdraw(paymentHeaders(config, bearer), body),
        (answered) => operations.waitAsAsked(answered),
      );
    const first = await send(token);
    if (!refusedForCredentials(first)) return;
    const renewed = await newToken(parts);
    if (renewed === undefined) return;
    const again = await send(renewed);
    if (!refusedForCredentials(again)) return;
    throw new ConfigError(
      'PIX_CLIENT_SECRET',
      `the first withdrawal, valid and sent with PIX_CLIENT_ID, PIX_CLIENT_SECRET and a token just issued to them, was refused, and again with a renewed token: ${printable(describeResponse(again.response), 300)}; no other withdrawal was sent`,
      'Check PIX_CLIENT_SECRET (and PIX_CLIENT_ID) against your client dashboard. If they are right, the provider refuses a withdrawal §4.2 allows.',
    );
  } catch (error) {
    // No complete answer: the ledger says its outcome is unknown; the tests judge the environment.
    if (error instanceof TransportError) return;
    throw error;
  }
}
