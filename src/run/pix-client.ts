/**
 * What the tests call: the two operations, with every response judged (response-judge.ts) and every
 * withdrawal gated and written to the ledger (payouts.ts) before it is sent (operations.ts).
 */
import type { Config } from '../config/config.ts';
import { isRateLimited, type Exchange } from '../evidence/exchange.ts';
import type { Inventor } from '../spec/invent.ts';
import type { Operations } from '../transport/operations.ts';
import type { NewWithdrawal, Payouts } from './payouts.ts';
import {
  headerValue,
  type Headers,
  paymentHeaders,
  tokenHeaders,
  validBody,
  withHeader,
} from '../spec/requests.ts';
import type { ResponseJudge } from './response-judge.ts';
import type { Renewal, WorkerSession } from './session.ts';
import type { Recorder } from './recorder.ts';
import type { WebhookClient } from '../webhook/receiver-client.ts';
import { isSuccess } from '../base/status.ts';
import { sendableInHeader } from '../checks/token.ts';
import { NotSentError, TransportError } from '../transport/http.ts';
import { BurstDoesNotFit, WaitBudgetSpent } from '../transport/gate.ts';
import { BoundReached } from '../transport/withdrawal-bound.ts';

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

/**
 * How many new tokens one withdrawal may be sent again with after its token was refused; before them,
 * once, the run's newest token when another test took one meanwhile.
 */
const MAX_RENEWALS = 2;

export class PixClient {
  private readonly parts: PixClientParts;

  constructor(parts: PixClientParts) {
    this.parts = parts;
  }

  /**
   * The client of one case among a test's independent cases, sent together: its verdicts go to the
   * case's recorder and its invented values come from the case's own stream, whatever order the
   * cases' answers come in.
   */
  forCase(verify: Recorder, invent: Inventor): PixClient {
    return new PixClient({ ...this.parts, verify, invent, judge: this.parts.judge.recordingWith(verify) });
  }

  get config(): Config {
    return this.parts.config;
  }

  tokenHeaders(): Headers {
    return tokenHeaders(this.config);
  }

  async requestToken(headers: Headers, alsoAllowed: readonly number[] = []): Promise<Exchange> {
    const { operations, session } = this.parts;
    const exchange = await this.answered(() => operations.createToken(headers));
    this.parts.judge.judge(exchange, alsoAllowed);
    // Issued to the configured credentials, it is the newest token: a provider keeping one revoked the held one.
    const token = operations.tokenIn(exchange);
    if (
      exchange.response.status === 200 &&
      token !== undefined &&
      sendableInHeader(token) &&
      sameHeaders(headers, this.tokenHeaders())
    )
      await session.adopt(token);
    return exchange;
  }

  /**
   * Runs `section` with the environment to itself (nothing else of the run in flight, no token
   * issued elsewhere meanwhile), through a client whose requests keep the run's limits.
   */
  alone<T>(section: (pix: PixClient) => Promise<T>, burst?: number): Promise<T> {
    return this.unlessSpent(
      this.parts.operations.exclusive(
        (operations) => section(new PixClient({ ...this.parts, operations })),
        burst,
      ),
    );
  }

  /**
   * Runs `section` with no token issued elsewhere in the run until it ends, while the other tests'
   * withdrawals go on: what a token's reuse and its fate after a newer one need, and no more.
   */
  holdingTokens<T>(section: (pix: PixClient) => Promise<T>): Promise<T> {
    return this.unlessSpent(
      this.parts.operations.holdingTokens((operations) =>
        section(new PixClient({ ...this.parts, operations })),
      ),
    );
  }

  /**
   * A section the gate refused to open, its wait budget spent or its burst wider than a window of
   * the environment's rate: the test's checks are SKIPPED saying which.
   */
  private async unlessSpent<T>(section: Promise<T>): Promise<T> {
    try {
      return await section;
    } catch (error) {
      if (error instanceof WaitBudgetSpent) this.parts.verify.rateLimitSpent(error);
      if (error instanceof BurstDoesNotFit) this.parts.verify.burstDoesNotFit(error);
      throw error;
    }
  }

  /** The worker's access token; without one the test cannot run and is SKIPPED with the reason. */
  async token(checks: Parameters<Recorder['skip']>[0]): Promise<string> {
    const result = await this.parts.session.token(this.parts.operations);
    if ('failure' in result)
      this.parts.verify.skip(
        checks,
        `no access token: ${result.failure} (see TOKEN-ISSUED and TOKEN-FIELD)`,
        result.blocker,
      );
    return result.token;
  }

  async paymentHeaders(checks: Parameters<Recorder['skip']>[0]): Promise<Headers> {
    return paymentHeaders(this.config, await this.token(checks));
  }

  /** Valid withdrawal headers with a token of this test's own, never used before (see WorkerSession.fresh). */
  async freshPaymentHeaders(checks: Parameters<Recorder['skip']>[0], share = true): Promise<Headers> {
    return paymentHeaders(this.config, (await this.freshToken(checks, share)).token);
  }

  /** A token of this test's own, never used before, with when it was issued and the answer that issued it. */
  async freshToken(
    checks: Parameters<Recorder['skip']>[0],
    share = true,
  ): Promise<{ token: string; issuedAt: number; exchange: Exchange | undefined }> {
    const result = await this.parts.session.fresh(this.parts.operations, share);
    if ('failure' in result)
      this.parts.verify.skip(checks, `no access token: ${result.failure} (see TOKEN-ISSUED)`, result.blocker);
    return { token: result.token, issuedAt: Date.now(), exchange: result.exchange };
  }

  /**
   * A fresh code and webhook address, and the complete valid body that uses them; `refuseFirst` has the
   * receiver answer the address's first delivery with that 5xx (the retry probe).
   */
  async newWithdrawal(address: { refuseFirst?: number } = {}): Promise<NewWithdrawal> {
    const tag = this.parts.invent.next((faker) => faker.string.alphanumeric({ length: 4, casing: 'upper' }));
    const code = this.parts.session.nextCode(tag);
    const { path, url } = await this.parts.webhooks.register({ ...address, whole: true });
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
   * Sends one withdrawal request, gated and written to the ledger first. A request sent with every
   * valid credential and refused for them (401, 403) found the worker's token dead: the refusal is
   * explicit, so it is sent once more with a renewed token, as a client renewing on §5.3's interval
   * would, and the token's death is recorded once (with how long it worked) instead of blaming every
   * later test on it. Nothing else is ever sent twice.
   */
  async withdraw(
    checkId: string,
    withdrawal: NewWithdrawal,
    headers: Headers,
    body: string | undefined,
    alsoAllowed: readonly number[] = [],
  ): Promise<Exchange> {
    const { session } = this.parts;
    const send = (inTurn: boolean): Promise<{ sent: Headers; exchange: Exchange }> =>
      this.sendRenewing({ checkId, withdrawal, headers, body }, inTurn);
    // Once a token died before its time, the next may die at its first use (single-use tokens): the
    // worker's withdrawals then go one at a time, each with the token the one before renewed.
    const { sent, exchange } = session.tokenDied ? await session.inTurn(() => send(true)) : await send(false);
    this.parts.judge.judge(exchange, alsoAllowed);
    if (isSuccess(exchange.response.status) && this.carriesValidCredentials(sent) !== undefined)
      session.credentialsAccepted = true;
    return session.credentialsAccepted || this.staleToken(sent, exchange) === undefined
      ? exchange
      : { ...exchange, refusedWithValidCredentials: true };
  }

  /**
   * Sends these withdrawals together, with the environment to itself: each written to the ledger
   * first, then all released at once, each on a connection of its own. What only concurrency shows
   * (a duplicate check that is not atomic). None is sent again with another token: a copy sent
   * later is no race (a 429 is waited out and sent again, as every request is). Under a rate the
   * environment taught, they leave after a quiet window when they fit the burst it took; else none
   * is sent and the test's checks are SKIPPED saying so.
   */
  race(
    checkId: string,
    entries: readonly { readonly withdrawal: NewWithdrawal; readonly body: string }[],
    headers: Headers,
  ): Promise<Exchange[]> {
    return this.alone(async (alone) => {
      const line = startingLine(entries.length);
      const exchanges = await Promise.all(
        entries.map(({ withdrawal, body }) =>
          alone.sendWithdrawal(checkId, withdrawal, headers, body, line.ready).finally(line.leave),
        ),
      );
      for (const exchange of exchanges) this.parts.judge.judge(exchange);
      return exchanges;
    }, entries.length);
  }

  /**
   * Sends a withdrawal, and again with a renewed token if the worker's token was refused: twice at
   * most, as a token another request renewed may have died too. The renewals go in the worker's turn.
   */
  private async sendRenewing(
    request: { checkId: string; withdrawal: NewWithdrawal; headers: Headers; body: string | undefined },
    inTurn: boolean,
  ): Promise<{ sent: Headers; exchange: Exchange }> {
    const { checkId, withdrawal, headers, body } = request;
    let sent = headers;
    let exchange = await this.sendWithdrawal(checkId, withdrawal, sent, body);
    if (this.staleToken(sent, exchange) === undefined) return { sent, exchange };
    const renewing = async (): Promise<{ sent: Headers; exchange: Exchange }> => {
      // A token another test took may have died too (single-use tokens): then new ones, twice at most.
      let mayReplace = true;
      for (let renewals = 0; renewals < MAX_RENEWALS;) {
        const stale = this.staleToken(sent, exchange);
        const renewal = stale === undefined ? undefined : await this.renewed(stale, exchange, mayReplace);
        if (renewal === undefined) break;
        const { token, replaced } = renewal;
        if (replaced) mayReplace = false;
        else renewals++;
        sent = withHeader(sent, 'Authorization', `Bearer ${token}`);
        exchange = await this.sendWithdrawal(checkId, withdrawal, sent, body);
      }
      return { sent, exchange };
    };
    return inTurn ? renewing() : this.parts.session.inTurn(renewing);
  }

  /** Sends one withdrawal request through the ledger; `beforeSend` holds it after its ledger line is written. */
  private sendWithdrawal(
    checkId: string,
    withdrawal: NewWithdrawal,
    headers: Headers,
    body: string | undefined,
    beforeSend?: () => Promise<void>,
  ): Promise<Exchange> {
    const { operations, payouts, retry, session } = this.parts;
    let attempts = 0;
    const dispatch = (): Promise<Exchange> => operations.createWithdraw(headers, body);
    return this.answered(() =>
      payouts.send(
        { checkId, withdrawal, url: operations.urlOf('createWithdraw'), body, retry },
        async () => {
          if (attempts++ > 0) return session.resendInTurn(dispatch);
          await beforeSend?.();
          return dispatch();
        },
        (answered) => {
          if (isRateLimited(answered)) session.rateLimited = true;
          return operations.waitAsAsked(answered);
        },
      ),
    );
  }

  /**
   * The answer to a request, or, when the environment gave none that is complete HTTP, its failure
   * recorded as RESPONSE-COMPLETE and the test stopped: the environment's failure, not the suite's.
   */
  private async answered(send: () => Promise<Exchange>): Promise<Exchange> {
    try {
      const exchange = await send();
      if (exchange.rateLimited !== undefined || isRateLimited(exchange))
        this.parts.session.rateLimited = true;
      return exchange;
    } catch (error) {
      if (error instanceof TransportError && !(error instanceof NotSentError))
        this.parts.verify.environmentFailed(error);
      if (error instanceof WaitBudgetSpent) this.parts.verify.rateLimitSpent(error);
      if (error instanceof BoundReached) this.parts.verify.boundReached(error);
      throw error;
    }
  }

  /** The token of a request refused for its credentials although it carried every valid one. */
  private staleToken(headers: Headers, exchange: Exchange): string | undefined {
    if (exchange.response.status !== 401 && exchange.response.status !== 403) return undefined;
    return this.carriesValidCredentials(headers);
  }

  /** The bearer token of headers that carry every configured credential, as a valid withdrawal does. */
  private carriesValidCredentials(headers: Headers): string | undefined {
    const token = /^Bearer (.+)$/.exec(headerValue(headers, 'authorization') ?? '')?.[1];
    if (token === undefined) return undefined;
    const valid = paymentHeaders(this.config, token);
    const carriesAll = Object.entries(valid).every(([name, value]) => headerValue(headers, name) === value);
    return carriesAll ? token : undefined;
  }

  /**
   * A token in place of `stale`; undefined when it was not one issued in this run. A token that died
   * with no newer one issued is recorded once, with how long it worked; one a newer token replaced is
   * TOKEN-SURVIVES-NEWER-TOKEN's to judge, once, not every request's.
   */
  private async renewed(stale: string, refused: Exchange, mayReplace: boolean): Promise<Renewal | undefined> {
    const renewal = await this.parts.session.renew(stale, this.parts.operations, mayReplace);
    if (renewal === undefined) return undefined;
    const { workedSeconds, replaced } = renewal;
    if (!replaced)
      this.parts.verify.observe(
        'token.stopped-working',
        '§5.3 (not shown)',
        { status: refused.response.status, workedSeconds },
        `a token issued to this client was refused ${workedSeconds} s after it was issued, before the 7200 s renewal; the request was sent again with a new token`,
      );
    return renewal;
  }
}

/**
 * Holds `runners` requests until every one is ready to go, then lets all go at once. One that fails
 * before it is ready leaves the line, so the others never wait for it.
 */
function startingLine(runners: number): { ready: () => Promise<void>; leave: () => void } {
  let waiting = 0;
  let expected = runners;
  let go: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    go = resolve;
  });
  const check = (): void => {
    if (waiting >= expected) go();
  };
  return {
    ready: () => {
      waiting += 1;
      check();
      return started;
    },
    leave: () => {
      expected -= 1;
      check();
    },
  };
}

/** Whether two header sets carry the same names (in any case) and values. */
function sameHeaders(a: Headers, b: Headers): boolean {
  const entries = Object.entries(a);
  return (
    entries.length === Object.keys(b).length &&
    entries.every(([name, value]) => headerValue(b, name) === value)
  );
}
