/**
 * Payout gating with the ledger: a withdrawal request may move money, so it is refused without the
 * opt-in and on a retried test, written to the ledger (fsync) before it leaves, sent exactly once,
 * and its outcome written after. The worker remembers the accepted ones to record their webhooks.
 */
import type { Exchange } from '../evidence/exchange.ts';
import { parseJson } from '../evidence/exchange.ts';
import { readPath } from '../base/json.ts';
import type { Ledger } from './ledger.ts';
import type { WithdrawBody } from '../spec/requests.ts';
import { isSuccess } from '../base/status.ts';
import type { Target } from './target.ts';
import type { WebhookClient } from '../webhook/client.ts';

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
  readonly withdrawal: NewWithdrawal;
  readonly url: string;
  /** The text sent, which may differ from the withdrawal's valid body. */
  readonly body: string | undefined;
  /** Playwright's retry number of the test: anything but 0 means the test is being run again. */
  readonly retry: number;
}

export class Payouts {
  private readonly accepted: { code: string; path: string }[] = [];

  constructor(
    private readonly target: Target,
    private readonly ledger: Ledger,
  ) {}

  /**
   * Sends one withdrawal request through `dispatch`, exactly once. The ledger line is on disk before
   * the request leaves; a request with no response is recorded as "outcome unknown" and never resent.
   */
  async send(request: PayoutRequest, dispatch: () => Promise<Exchange>): Promise<Exchange> {
    const { checkId, withdrawal, url, body, retry } = request;
    const missing = this.target.missing('payout');
    if (missing !== undefined) throw new Error(`Refusing to send POST /pix/payment: ${missing}.`);
    if (retry > 0) {
      throw new Error(
        'Refusing to send POST /pix/payment again: a test that sends withdrawals is never retried (drop --retries).',
      );
    }
    this.ledger.intent({
      checkId,
      code: withdrawal.code,
      amount: body === undefined ? null : (readPath(parseJson(body), 'amount') ?? null),
      payeeKey: this.target.config.payee.key,
      url,
    });
    let exchange: Exchange;
    try {
      exchange = await dispatch();
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
    const accepted = isSuccess(status);
    const providerId = readPath(json, 'id') ?? readPath(json, 'transaction_id');
    this.ledger.outcome({
      code: withdrawal.code,
      status,
      outcome: accepted ? 'accepted' : 'refused',
      ...(typeof providerId === 'string' ? { providerId } : {}),
    });
    if (accepted) this.accepted.push({ code: withdrawal.code, path: withdrawal.path });
    return exchange;
  }

  /** Records, for the ledger, whether each accepted withdrawal's webhook arrived by the end of the run. */
  async recordWebhooks(webhooks: WebhookClient): Promise<void> {
    for (const { code, path } of this.accepted) {
      const { deliveries } = await webhooks.snapshot(path);
      this.ledger.webhook({ code, webhookReceived: deliveries.length > 0, deliveries: deliveries.length });
    }
  }
}
