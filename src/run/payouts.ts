/**
 * Payout gating with the ledger: a withdrawal request may move money, so it is refused without the
 * opt-in and on a retried test, written to the ledger (fsync) before it leaves, sent exactly once,
 * and its outcome written after. The worker remembers the accepted ones to record their webhooks.
 */
import type { Exchange } from '../evidence/exchange.ts';
import { parseJson } from '../evidence/exchange.ts';
import { sendUntilServed } from '../transport/operations.ts';
import { readPath } from '../base/json.ts';
import type { Ledger, LedgerWebhook, WithdrawalOutcome } from './ledger.ts';
import type { WithdrawBody } from '../spec/requests.ts';
import { isClientError, isSuccess } from '../base/status.ts';
import { summaryOf } from '../evidence/delivery.ts';
import { NotSentError, TransportError } from '../transport/http.ts';
import { WaitBudgetSpent } from '../transport/gate.ts';
import type { Target } from './target.ts';
import type { DeliveryReport, WebhookClient } from '../webhook/receiver-client.ts';
import { BoundReached, localBound, type WithdrawalBound } from '../transport/withdrawal-bound.ts';

/** A withdrawal the suite is about to send: its code, its webhook address and its valid body. */
export interface NewWithdrawal {
  readonly code: string;
  readonly path: string;
  readonly url: string;
  readonly body: WithdrawBody;
}

export interface PayoutRequest {
  /** The check the request serves, for the ledger. */
  readonly checkId: string;
  /** Its code, for the ledger, and its webhook path, to reconcile ('' when it names no PostBackUrl). */
  readonly withdrawal: Pick<NewWithdrawal, 'code' | 'path'>;
  readonly url: string;
  /** The text sent, which may differ from the withdrawal's valid body. */
  readonly body: string | undefined;
  /** Playwright's retry number of the test: anything but 0 means the test is being run again. */
  readonly retry: number;
}

/** The ledger's outcome of an answered withdrawal request (see WithdrawalOutcome). */
export function outcomeOfStatus(status: number): WithdrawalOutcome {
  if (isSuccess(status)) return 'accepted';
  if (status === 429) return 'rate-limited';
  return isClientError(status) ? 'refused' : 'unknown';
}

const OUTCOME_NOTES: Partial<Record<WithdrawalOutcome, string>> = {
  'rate-limited': 'answered 429: not processed by the provider',
  unknown:
    'answered with no clear refusal (5xx or unexpected status): it may have been paid; not resent; check with the provider and the webhooks',
};

export class Payouts {
  /** The withdrawals that were not clearly refused, whose webhooks the ledger records. */
  private readonly watched: { code: string; path: string; unknown: boolean }[] = [];
  /**
   * The refused withdrawals that named a PostBackUrl of the run's receiver, by code: a webhook to one
   * is worth a warning (WEBHOOK-NONE-FOR-REFUSED), unless its code was also accepted (a refused
   * duplicate shares the accepted withdrawal's address).
   */
  private readonly refused = new Map<string, { path: string; checkId: string; status: number }>();

  private readonly target: Target;
  private readonly ledger: Ledger;
  /** The run's bound on withdrawal requests (the plan's), which every attempt takes from. */
  private readonly bound: WithdrawalBound;

  constructor(target: Target, ledger: Ledger, bound: WithdrawalBound = localBound(undefined)) {
    this.target = target;
    this.ledger = ledger;
    this.bound = bound;
  }

  /**
   * Sends one withdrawal request through `dispatch`, exactly once. The ledger line is on disk before
   * the request leaves; a request with no response is recorded as "outcome unknown" and never resent.
   */
  async send(
    request: PayoutRequest,
    dispatch: () => Promise<Exchange>,
    waitAsAsked: (exchange: Exchange) => Promise<number | undefined>,
  ): Promise<Exchange> {
    // A 429 was not processed: after the wait it asked for, the same request goes again, in the ledger again.
    return sendUntilServed(() => this.sendOnce(request, dispatch), waitAsAsked);
  }

  private async sendOnce(request: PayoutRequest, dispatch: () => Promise<Exchange>): Promise<Exchange> {
    const { checkId, withdrawal, url, body, retry } = request;
    const missing = this.target.missing('payout');
    if (missing !== undefined) throw new Error(`Refusing to send POST /pix/payment: ${missing}.`);
    if (retry > 0) {
      throw new Error(
        'Refusing to send POST /pix/payment again: a test that sends withdrawals is never retried (drop --retries).',
      );
    }
    const sent = body === undefined ? undefined : parseJson(body);
    this.ledger.intent({
      checkId,
      code: withdrawal.code,
      amount: sent === undefined ? null : (readPath(sent, 'amount') ?? null),
      checkCode: sent !== undefined && readPath(sent, 'check_code') === true,
      payeeKey: this.target.config.payee.key,
      url,
    });
    const { taken, limit } = await this.bound.take();
    if (!taken) {
      const reached = new BoundReached(limit ?? 0);
      this.ledger.outcome({
        code: withdrawal.code,
        status: null,
        outcome: 'not-sent',
        note: reached.message,
      });
      throw reached;
    }
    let exchange: Exchange;
    try {
      exchange = await dispatch();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof WaitBudgetSpent) {
        // Held at the gate, never sent: the test records its checks as rate-limited (Recorder.rateLimitSpent).
        this.ledger.outcome({ code: withdrawal.code, status: null, outcome: 'not-sent', note: reason });
        throw error;
      }
      if (error instanceof NotSentError) {
        this.ledger.outcome({ code: withdrawal.code, status: null, outcome: 'not-sent', note: reason });
        throw new Error(`${reason}\nWithdrawal ${withdrawal.code} was not sent; see ${this.ledger.path}.`);
      }
      this.ledger.outcome({
        code: withdrawal.code,
        status: null,
        outcome: 'unknown',
        note: 'no complete response: outcome unknown, not resent; check with the provider and the webhooks',
      });
      this.watched.push({ code: withdrawal.code, path: withdrawal.path, unknown: true });
      const note = `Outcome unknown for withdrawal ${withdrawal.code}: it was not resent; see ${this.ledger.path}.`;
      // Still the environment's failure to answer (a TransportError), told with what it means for the money.
      if (error instanceof TransportError)
        throw Object.assign(error, { message: `${error.message}\n${note}` });
      throw new Error(`${reason}\n${note}`);
    }
    const { status, json } = exchange.response;
    const outcome = outcomeOfStatus(status);
    const providerId = readPath(json, 'id') ?? readPath(json, 'transaction_id');
    const note = OUTCOME_NOTES[outcome];
    this.ledger.outcome({
      code: withdrawal.code,
      status,
      outcome,
      ...(typeof providerId === 'string' ? { providerId } : {}),
      ...(note === undefined ? {} : { note }),
    });
    if (outcome === 'accepted' || outcome === 'unknown')
      this.watched.push({ code: withdrawal.code, path: withdrawal.path, unknown: outcome === 'unknown' });
    if (outcome === 'refused' && withdrawal.path !== '')
      this.refused.set(withdrawal.code, { path: withdrawal.path, checkId, status });
    return exchange;
  }

  /**
   * Records, for the ledger, whether the webhook of each withdrawal arrived by the end of the run, and
   * the statuses it reported: what reconciles an unknown outcome, and what a refused one should not get.
   */
  async recordWebhooks(webhooks: WebhookClient): Promise<void> {
    await this.recordUnrefused(webhooks);
    await this.recordRefused(webhooks);
  }

  private async recordRefused(webhooks: WebhookClient): Promise<void> {
    const served = new Set(this.watched.map((w) => w.code));
    const refused = [...this.refused].filter(([code]) => !served.has(code));
    const reported = await Promise.all(
      refused.map(async ([code, { path, checkId, status }]) => ({
        code,
        refused: { checkId, status },
        report: await webhooks.snapshot(path),
      })),
    );
    for (const { code, refused: refusal, report } of reported)
      this.ledger.webhook({ code, ...webhookFacts(report), refused: refusal });
  }

  private async recordUnrefused(webhooks: WebhookClient): Promise<void> {
    // An unknown outcome is worth the webhook wait: its webhook is the only word on whether it paid.
    const wait = { timeoutMs: this.target.config.webhook.timeoutMs, graceMs: 0 };
    const reported = await Promise.all(
      this.watched.map(async ({ code, path, unknown }) => ({
        code,
        report: await (unknown ? webhooks.waitFor(path, wait) : webhooks.snapshot(path)),
      })),
    );
    for (const { code, report } of reported) this.ledger.webhook({ code, ...webhookFacts(report) });
  }
}

/** Attempts the ledger keeps per withdrawal: a storm shows within far fewer. */
const MAX_LEDGER_ATTEMPTS = 50;

/** What the ledger says of a withdrawal's deliveries: whether any came, how many, their statuses, every attempt's time. */
function webhookFacts({ deliveries, incomplete }: DeliveryReport): Omit<LedgerWebhook, 'code'> {
  const statuses = deliveries.flatMap((d) => summaryOf(d).statuses);
  const attempts = [...deliveries, ...incomplete]
    .sort((a, b) => a.seq - b.seq)
    .slice(0, MAX_LEDGER_ATTEMPTS)
    .map(({ seq, path, receivedAt, answeredStatus, outcome }) => ({
      seq,
      path,
      receivedAt,
      answeredStatus,
      outcome,
    }));
  return {
    webhookReceived: deliveries.length > 0,
    deliveries: deliveries.length,
    ...(statuses.length === 0 ? {} : { statuses }),
    ...(attempts.length === 0 ? {} : { attempts }),
  };
}
