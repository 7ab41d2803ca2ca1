/**
 * What happens to a valid withdrawal, chosen by the cents of its amount, as payout sandboxes do with
 * magic values (docs/simulator.md). The names are the contract with the client certification; the
 * amounts are the simulator's own choice, read from the table, never hard-coded elsewhere. Their types
 * come from the control API's contract (openapi/simulator-control.yaml).
 */
import type { components } from './generated/simulator-control.ts';

type Schemas = components['schemas'];
export type WebhookEvent = Schemas['WebhookEvent'];
export type WebhookKind = Schemas['WebhookKind'];
export type PlannedWebhook = Schemas['PlannedWebhook'];
export type OutcomeName = Schemas['OutcomeName'];
export type OutcomeRow = Schemas['OutcomeRow'];

export interface Withdrawal {
  readonly id: string;
  readonly code: string | null;
  readonly amount: unknown;
  /** PostBackUrl as the withdrawal gave it. */
  readonly url: string | undefined;
  /** Its answer is still to be written (webhooks posted first, a slow or a held answer); absent: written, or none due. */
  answerPending?: boolean;
}

/** How long no-answer-paid holds the connection before closing it unanswered. */
export const NO_ANSWER_HOLD_SECONDS = 60;
/** webhook-retried and trigger: attempts in all, and the wait before each attempt after the first. */
export const RETRY_DELAYS_SECONDS = [1, 2] as const;

const PAID_NOW: PlannedWebhook[] = [{ status: 'PAID', afterSeconds: 0, kind: 'valid' }];

/** In the order docs/simulator.md and --outcomes print them. */
const ROWS: readonly OutcomeRow[] = [
  { name: 'paid', amount: 0.01, status: 200, webhooks: PAID_NOW, meaning: 'accepted and paid: one PAID webhook (any amount not listed here too)' },
  { name: 'payout-failed', amount: 0.11, status: 200, webhooks: [{ status: 'FAILED', afterSeconds: 0, kind: 'valid' }], meaning: 'accepted, then the payout fails: one FAILED webhook' },
  { name: 'refused-400', amount: 0.4, status: 400, webhooks: [], meaning: 'refused with 400, not processed: no webhook, the code stays free' },
  { name: 'error-500', amount: 0.5, status: 500, webhooks: [], meaning: 'answered 500 and not processed: no webhook, the code stays free' },
  { name: 'error-500-paid', amount: 0.51, status: 500, webhooks: PAID_NOW, meaning: 'answered 500 but paid all the same: a PAID webhook; the code is taken (check_code true refuses it again)' },
  { name: 'no-answer-paid', amount: 0.52, status: null, webhooks: [{ status: 'PAID', afterSeconds: 1, kind: 'valid' }], meaning: `no answer (the connection closes unanswered after ${NO_ANSWER_HOLD_SECONDS} s) but paid: a PAID webhook 1 s after the request` },
  { name: 'rate-limited-429', amount: 0.29, status: 429, retryAfterSeconds: 1, webhooks: [], meaning: 'answered 429 with Retry-After: 1 the first time a code comes, not processed: no webhook, the code stays free; its resend is paid' },
  { name: 'unauthorized-401', amount: 0.41, status: 401, webhooks: [], meaning: 'answered 401 as to a token no longer valid, not processed: no webhook, the code stays free (renew once, try once more, then stop)' },
  { name: 'webhook-late', amount: 0.3, status: 200, webhooks: [{ status: 'PAID', afterSeconds: 30, kind: 'valid' }], meaning: 'accepted; the PAID webhook comes 30 s late' },
  { name: 'webhook-twice', amount: 0.22, status: 200, webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'valid' }, { status: 'PAID', afterSeconds: 0.5, kind: 'duplicate' }], meaning: 'accepted; the PAID webhook is delivered twice (the same webhook-id)' },
  { name: 'out-of-order', amount: 0.23, status: 200, webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'valid' }, { status: 'PROCESSING', afterSeconds: 0.5, kind: 'out-of-order' }], meaning: 'accepted; PAID arrives before PROCESSING: a handler must not step back' },
  { name: 'webhook-retried', amount: 0.53, status: 200, webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'valid' }, { status: 'PAID', afterSeconds: 1, kind: 'retry' }, { status: 'PAID', afterSeconds: 3, kind: 'retry' }], meaning: 'accepted; the PAID webhook is sent again 1 s, then 2 s after each answer other than 2xx (3 attempts at most; the first 2xx stops them)' },
  { name: 'webhook-malformed', amount: 0.24, status: 200, webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'malformed' }, { status: 'PAID', afterSeconds: 0.5, kind: 'valid' }], meaning: 'accepted; a PAID webhook whose JSON is cut short, then a valid one: the handler must survive the first' },
  { name: 'webhook-extra-fields', amount: 0.25, status: 200, webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'extra-fields' }], meaning: 'accepted; the PAID webhook carries fields the handler does not know, which it must ignore' },
]; // prettier-ignore

const BY_CENTS = new Map(ROWS.map((row) => [centsOf(row.amount), row]));
const PAID = ROWS[0] as OutcomeRow;

function centsOf(amount: number): number {
  return Math.round(amount * 100) % 100;
}

/** The outcome of a valid withdrawal of this amount: by its cents, `paid` for any amount not listed. */
export function outcomeOf(amount: unknown): OutcomeRow {
  return typeof amount === 'number' && Number.isFinite(amount)
    ? (BY_CENTS.get(centsOf(amount)) ?? PAID)
    : PAID;
}

/**
 * rate-limited-429 answers a code 429 the first time only: its resend after Retry-After is served as
 * paid, so a client that waits is judged on what follows. Without a code there is no resend to know.
 */
export function limitedOnce(
  outcome: OutcomeRow,
  code: string | null,
  firstTime: (code: string) => boolean,
): OutcomeRow {
  return outcome.name !== 'rate-limited-429' || code === null || firstTime(code) ? outcome : PAID;
}

/**
 * The table, with every delay multiplied by `timeScale` (1 for users; a self-test shrinks it to stay
 * fast), as --outcomes --json and GET /_sim/outcomes give it.
 */
export function outcomeTable(timeScale = 1): OutcomeRow[] {
  return ROWS.map((row) => ({
    ...row,
    webhooks: row.webhooks.map((webhook) => ({ ...webhook, afterSeconds: webhook.afterSeconds * timeScale })),
  }));
}

/** The table as --outcomes prints it: one line per outcome. */
export function outcomeLines(): string[] {
  const nameWidth = Math.max(...ROWS.map((row) => row.name.length));
  return [
    `${'amount'.padEnd(8)}${'outcome'.padEnd(nameWidth + 2)}${'answer'.padEnd(8)}${'webhooks'.padEnd(44)}meaning`,
    ...ROWS.map((row) => {
      const webhooks = row.webhooks.map(
        (w) =>
          `${w.status}@${w.afterSeconds}s${w.kind === 'valid' || w.kind === undefined ? '' : `(${w.kind})`}`,
      );
      return `${row.amount.toFixed(2).padEnd(8)}${row.name.padEnd(nameWidth + 2)}${String(row.status ?? 'none').padEnd(8)}${(webhooks.join(' ') || '-').padEnd(44)}${row.meaning}`;
    }),
    'The cents choose: 1.22 behaves as 0.22. Any other amount: paid.',
  ];
}
