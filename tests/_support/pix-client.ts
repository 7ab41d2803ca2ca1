/**
 * The suite's client of the two operations. Every response goes through the checks every response
 * must pass; every withdrawal is gated, written to the ledger before it is sent and never retried.
 */
import type { APIRequestContext } from '@playwright/test';
import type { Exchange } from './exchange.ts';
import { send } from './http.ts';
import type { Ledger } from './ledger.ts';
import {
  type Headers,
  paymentHeaders,
  tokenHeaders,
  validBody,
  withdrawalCode,
  type WithdrawBody,
} from './requests.ts';
import { shapeOf } from './shape.ts';
import type { Target } from './target.ts';
import type { Verifier } from './verifier.ts';
import type { WebhookClient } from './webhook/client.ts';
import { RESPONSE_CHECKS } from './checks/responses.ts';
import { readPath } from './json.ts';
import { registerSecret } from './redact.ts';
import type { SpecModel } from './spec.ts';

/** Worker-wide state: the token obtained once per worker and the withdrawals that were accepted. */
export interface WorkerSession {
  token(): Promise<{ token: string } | { failure: string }>;
  readonly accepted: { code: string; path: string }[];
  nextCode(): string;
}

export interface NewWithdrawal {
  readonly code: string;
  readonly path: string;
  readonly url: string;
  readonly body: WithdrawBody;
}

const OPERATION_PATHS = { createToken: '/auth/token', createWithdraw: '/pix/payment' } as const;

export class PixClient {
  constructor(
    private readonly target: Target,
    private readonly spec: SpecModel,
    private readonly http: APIRequestContext,
    private readonly verify: Verifier,
    private readonly ledger: Ledger,
    private readonly webhooks: WebhookClient,
    private readonly session: WorkerSession,
    /** Playwright's retry number of the test: anything but 0 means the test is being run again. */
    private readonly retry: number,
  ) {}

  get config(): Target['config'] {
    return this.target.config;
  }

  tokenHeaders(): Headers {
    return tokenHeaders(this.config);
  }

  async requestToken(headers: Headers, alsoAllowed: readonly number[] = []): Promise<Exchange> {
    const exchange = await send(
      this.http,
      'createToken',
      {
        method: 'POST',
        url: `${this.target.baseUrl}${OPERATION_PATHS.createToken}`,
        headers,
        body: undefined,
      },
      this.config.requestTimeoutMs,
    );
    registerIssuedToken(exchange, this.config.tokenField);
    this.judgeResponse(exchange, alsoAllowed);
    this.observeShape('token', exchange);
    return exchange;
  }

  /** The worker's access token; without one the test cannot run and is SKIPPED with the reason. */
  async token(checks: Parameters<Verifier['skip']>[0]): Promise<string> {
    const result = await this.session.token();
    if ('failure' in result)
      this.verify.skip(checks, `no access token: ${result.failure} (see TOKEN-ISSUED and TOKEN-FIELD)`);
    return result.token;
  }

  async paymentHeaders(checks: Parameters<Verifier['skip']>[0]): Promise<Headers> {
    return paymentHeaders(this.config, await this.token(checks));
  }

  /** A fresh code and webhook address, and the complete valid body that uses them. */
  async newWithdrawal(): Promise<NewWithdrawal> {
    const code = this.session.nextCode();
    const { path, url } = await this.webhooks.register();
    return { code, path, url, body: validBody(this.config, code, url) };
  }

  /** Sends a fresh withdrawal with its complete valid body (§2.1) and these headers. */
  async withdrawNew(
    checkId: string,
    headers: Headers,
    alsoAllowed: readonly number[] = [],
  ): Promise<{ withdrawal: NewWithdrawal; exchange: Exchange }> {
    const withdrawal = await this.newWithdrawal();
    const exchange = await this.withdraw(
      checkId,
      withdrawal,
      headers,
      JSON.stringify(withdrawal.body),
      alsoAllowed,
    );
    return { withdrawal, exchange };
  }

  /**
   * Sends one withdrawal request, exactly once. The ledger line is on disk before the request
   * leaves; a request with no response is recorded as "outcome unknown" and never resent.
   */
  async withdraw(
    checkId: string,
    withdrawal: NewWithdrawal,
    headers: Headers,
    body: string | undefined,
    alsoAllowed: readonly number[] = [],
  ): Promise<Exchange> {
    const missing = this.target.missing('payout');
    if (missing !== undefined) throw new Error(`Refusing to send POST /pix/payment: ${missing}.`);
    if (this.retry > 0) {
      throw new Error(
        'Refusing to send POST /pix/payment again: a test that sends withdrawals is never retried (drop --retries).',
      );
    }
    const url = `${this.target.baseUrl}${OPERATION_PATHS.createWithdraw}`;
    this.ledger.intent({
      checkId,
      code: withdrawal.code,
      amount: amountIn(body),
      payeeKey: this.config.payee.key,
      url,
    });
    let exchange: Exchange;
    try {
      exchange = await send(
        this.http,
        'createWithdraw',
        { method: 'POST', url, headers, body },
        this.config.requestTimeoutMs,
      );
    } catch (error) {
      this.ledger.outcome({
        code: withdrawal.code,
        status: null,
        outcome: 'unknown',
        note: 'no response: outcome unknown, not retried; check with the provider',
      });
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `${reason}\nOutcome unknown for withdrawal ${withdrawal.code}: it was not resent; see ${this.ledger.path}.`,
      );
    }
    const { status, json } = exchange.response;
    const accepted = status >= 200 && status < 300;
    const providerId = readPath(json, 'id') ?? readPath(json, 'transaction_id');
    this.ledger.outcome({
      code: withdrawal.code,
      status,
      outcome: accepted ? 'accepted' : 'refused',
      ...(typeof providerId === 'string' ? { providerId } : {}),
    });
    if (accepted) this.session.accepted.push({ code: withdrawal.code, path: withdrawal.path });
    this.judgeResponse(exchange, alsoAllowed);
    this.observeShape('withdraw', exchange);
    return exchange;
  }

  /** The checks every response must pass, given what they judge. */
  private judgeResponse(exchange: Exchange, alsoAllowed: readonly number[]): void {
    const { operation, response } = exchange;
    const input = {
      exchange,
      documented: this.spec.operations[operation].statuses,
      alsoAllowed,
      validate: this.spec.responseValidator(operation, response.status),
    };
    for (const check of RESPONSE_CHECKS) this.verify.check(check, input, exchange);
  }

  private observeShape(operation: 'token' | 'withdraw', exchange: Exchange): void {
    const { status, json } = exchange.response;
    const ok = status >= 200 && status < 300;
    this.verify.observe(
      ok ? `${operation}.response.shape` : `error.response.shape.${status}`,
      ok ? '§2.3 (not shown)' : '§7 (not shown)',
      shapeOf(json),
    );
  }
}

/** Every token the run obtains is a secret from the moment it arrives. */
function registerIssuedToken(exchange: Exchange, field: string): unknown {
  const token = readPath(exchange.response.json, field);
  if (typeof token === 'string') registerSecret(token, 'token');
  return token;
}

function amountIn(body: string | undefined): unknown {
  try {
    return body === undefined ? null : ((JSON.parse(body) as { amount?: unknown }).amount ?? null);
  } catch {
    return null;
  }
}

export function workerSession(target: Target, http: APIRequestContext, workerIndex: number): WorkerSession {
  let pending: Promise<{ token: string } | { failure: string }> | undefined;
  let counter = 0;
  return {
    accepted: [],
    nextCode: () => withdrawalCode(target.config.codePrefix, target.runId, workerIndex, ++counter),
    token: () => {
      pending ??= send(
        http,
        'createToken',
        {
          method: 'POST',
          url: `${target.baseUrl}${OPERATION_PATHS.createToken}`,
          headers: tokenHeaders(target.config),
          body: undefined,
        },
        target.config.requestTimeoutMs,
      ).then(
        (exchange) => {
          const token = registerIssuedToken(exchange, target.config.tokenField);
          return exchange.response.status === 200 && typeof token === 'string' && token !== ''
            ? { token }
            : {
                failure: `the token request answered ${exchange.response.status} without a token at '${target.config.tokenField}'`,
              };
        },
        (error: unknown) => ({ failure: error instanceof Error ? error.message : String(error) }),
      );
      return pending;
    },
  };
}
