/**
 * Sending: the two operations of the document as calls that return the exchange. The one place that
 * builds a request's URL. Every token a response carries is registered as a secret by the HTTP layer
 * (http.ts), whatever the operation, status or content type.
 */
import { isRateLimited, tokenAt, type Exchange } from '../evidence/exchange.ts';
import { retryAfterMs, type Gate } from './gate.ts';
import { send, type HttpClient } from './http.ts';
import type { Headers } from '../spec/requests.ts';
import type { OperationId } from '../spec/spec.ts';

const PATHS: Readonly<Record<OperationId, string>> = {
  createToken: '/auth/token',
  createWithdraw: '/pix/payment',
};

/** Every request of a run is sent at most this many times, the first included: only a 429 is sent again. */
export const MAX_ATTEMPTS = 5;

/**
 * Sends a request, waits as each answer asks (a 429 or a 503 with Retry-After pauses the whole run),
 * and sends it again only after a 429, which was not processed: MAX_ATTEMPTS in all, and never once
 * the suite stopped waiting. The exchange returned is the last, with the 429s before it.
 */
export async function sendUntilServed(
  attempt: () => Promise<Exchange>,
  waitAsAsked: (exchange: Exchange) => Promise<number | undefined>,
): Promise<Exchange> {
  const waits: { status: number; waitedMs: number }[] = [];
  for (;;) {
    const exchange = await attempt();
    const waited = await waitAsAsked(exchange);
    if (!isRateLimited(exchange) || waited === undefined || waits.length + 1 >= MAX_ATTEMPTS)
      return waits.length === 0 ? exchange : { ...exchange, rateLimited: waits };
    waits.push({ status: exchange.response.status, waitedMs: waited });
  }
}

export interface OperationsOptions {
  readonly baseUrl: string;
  /** The run's limits; every request waits for a slot. */
  readonly gate: Gate;
  readonly timeoutMs: number;
  /** Where the token is in a token response (PIX_TOKEN_FIELD). */
  readonly tokenField: string;
}

export class Operations {
  private readonly client: HttpClient;
  private readonly options: OperationsOptions;

  constructor(client: HttpClient, options: OperationsOptions) {
    this.client = client;
    this.options = options;
  }

  urlOf(operation: OperationId): string {
    return `${this.options.baseUrl}${PATHS[operation]}`;
  }

  /**
   * POST /auth/token (§4.1): no body. A 429 was not processed, so the same request goes again after
   * the wait, up to MAX_ATTEMPTS in all; the exchange returned is the last, with the earlier ones.
   */
  createToken(headers: Headers): Promise<Exchange> {
    return sendUntilServed(
      () => this.post('createToken', headers, undefined),
      (answered) => this.waitAsAsked(answered),
    );
  }

  /**
   * POST /pix/payment (§4.2), exactly once: callers write the ledger first, wait as the answer asks
   * (waitAsAsked) and decide whether a 429 is sent again (payouts.ts, each attempt its own entry).
   */
  createWithdraw(headers: Headers, body: string | undefined): Promise<Exchange> {
    return this.post('createWithdraw', headers, body);
  }

  /**
   * A 429, or a 503 with Retry-After, pauses the whole run for the time asked. The wait in ms, or
   * undefined when the answer asked for none or for more than the suite waits.
   */
  async waitAsAsked(exchange: Exchange): Promise<number | undefined> {
    const { status, headers } = exchange.response;
    const ms = retryAfterMs(status, headers);
    if (ms === undefined) return undefined;
    const path = new URL(exchange.request.url).pathname;
    const why = `${status} on POST ${path}`;
    const waited = await this.options.gate.pause(
      status === 429 ? { ms, why, rateLimitedSentAt: Date.now() - exchange.durationMs } : { ms, why },
    );
    return waited ? ms : undefined;
  }

  /**
   * Runs `section` with the environment to itself (Gate.exclusive), through operations whose
   * requests go through the section's own gate; `burst`: how many it releases together.
   */
  exclusive<T>(section: (operations: Operations) => Promise<T>, burst?: number): Promise<T> {
    return this.options.gate.exclusive(
      (inner) => section(new Operations(this.client, { ...this.options, gate: inner })),
      burst,
    );
  }

  /**
   * Runs `section` with no other token request of the run let out until it ends (Gate.holdingTokens),
   * through operations whose requests, token ones included, go through the section's own gate.
   */
  holdingTokens<T>(section: (operations: Operations) => Promise<T>): Promise<T> {
    return this.options.gate.holdingTokens((inner) =>
      section(new Operations(this.client, { ...this.options, gate: inner })),
    );
  }

  /** The token a token response carries at PIX_TOKEN_FIELD, if it is a string. */
  tokenIn(exchange: Exchange): string | undefined {
    return tokenAt(exchange, this.options.tokenField);
  }

  private post(operation: OperationId, headers: Headers, body: string | undefined): Promise<Exchange> {
    return this.options.gate.run(
      () =>
        send(
          this.client,
          operation,
          { method: 'POST', url: this.urlOf(operation), headers, body },
          this.options.timeoutMs,
        ),
      operation === 'createToken' ? 'token' : 'other',
    );
  }
}
