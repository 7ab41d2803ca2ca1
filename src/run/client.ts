/**
 * What the tests call: the two operations, with every response judged (response-judge.ts) and every
 * withdrawal gated and written to the ledger (payouts.ts) before it is sent (operations.ts).
 */
import type { Config } from '../config/config.ts';
import type { Exchange } from '../evidence/exchange.ts';
import type { Inventor } from '../spec/invent.ts';
import type { Operations } from '../transport/operations.ts';
import type { NewWithdrawal, Payouts } from './payouts.ts';
import { type Headers, paymentHeaders, tokenHeaders, validBody } from '../spec/requests.ts';
import type { ResponseJudge } from './response-judge.ts';
import type { WorkerSession } from './session.ts';
import type { Recorder } from './recorder.ts';
import type { WebhookClient } from '../webhook/client.ts';

export interface PixClientParts {
  readonly config: Config;
  readonly operations: Operations;
  readonly payouts: Payouts;
  readonly judge: ResponseJudge;
  readonly session: WorkerSession;
  readonly webhooks: WebhookClient;
  readonly verify: Recorder;
  readonly invent: Inventor;
  /** Playwright's retry number of the test. */
  readonly retry: number;
}

export class PixClient {
  constructor(private readonly parts: PixClientParts) {}

  get config(): Config {
    return this.parts.config;
  }

  tokenHeaders(): Headers {
    return tokenHeaders(this.config);
  }

  async requestToken(headers: Headers, alsoAllowed: readonly number[] = []): Promise<Exchange> {
    const exchange = await this.parts.operations.createToken(headers);
    this.parts.judge.judge(exchange, alsoAllowed);
    return exchange;
  }

  /** The worker's access token; without one the test cannot run and is SKIPPED with the reason. */
  async token(checks: Parameters<Recorder['skip']>[0]): Promise<string> {
    const result = await this.parts.session.token();
    if ('failure' in result)
      this.parts.verify.skip(checks, `no access token: ${result.failure} (see TOKEN-ISSUED and TOKEN-FIELD)`);
    return result.token;
  }

  async paymentHeaders(checks: Parameters<Recorder['skip']>[0]): Promise<Headers> {
    return paymentHeaders(this.config, await this.token(checks));
  }

  /** A fresh code and webhook address, and the complete valid body that uses them. */
  async newWithdrawal(): Promise<NewWithdrawal> {
    const tag = this.parts.invent.next((faker) => faker.string.alphanumeric({ length: 4, casing: 'upper' }));
    const code = this.parts.session.nextCode(tag);
    const { path, url } = await this.parts.webhooks.register();
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

  /** Sends one withdrawal request, exactly once, gated and written to the ledger first. */
  async withdraw(
    checkId: string,
    withdrawal: NewWithdrawal,
    headers: Headers,
    body: string | undefined,
    alsoAllowed: readonly number[] = [],
  ): Promise<Exchange> {
    const { operations, payouts, judge, retry } = this.parts;
    const url = operations.urlOf('createWithdraw');
    const exchange = await payouts.send({ checkId, withdrawal, url, body, retry }, () =>
      operations.createWithdraw(headers, body),
    );
    judge.judge(exchange, alsoAllowed);
    return exchange;
  }
}
