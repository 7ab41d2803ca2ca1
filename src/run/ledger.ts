/**
 * The write-ahead ledger of withdrawal requests: a line is on disk (fsync) before the request is
 * sent, and a second line records the outcome. An interrupted run leaves a ledger that tells exactly
 * which requests may have moved money. It holds no secret: every line is redacted and bounded like
 * a report (a provider may answer with a secret as the withdrawal's id), and the payee key is masked.
 */
import { closeSync, constants, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { boundedJson } from '../evidence/shape.ts';
import type { JsonValue } from '../base/json.ts';
import type { PaceAttempt } from '../checks/webhook-pace.ts';

export const LEDGER_FILE = 'ledger.jsonl';

export interface LedgerIntent {
  readonly checkId: string;
  readonly code: string;
  readonly amount: unknown;
  /** Whether the body carried check_code true: only then is a code accepted twice a possible second payout. */
  readonly checkCode: boolean;
  readonly payeeKey: string;
  readonly url: string;
}

/**
 * What happened to one withdrawal request, as far as the suite can know:
 * - accepted: a 2xx; the provider took it and may pay;
 * - refused: a 4xx other than 429; the provider said no;
 * - rate-limited: a 429; explicitly not processed, so the suite may send it again after the wait;
 * - unknown: a 5xx, a time-out, a reset or an answer that is not HTTP; it may have been paid: the
 *   webhooks and the provider tell, and the suite never sends it again;
 * - not-sent: the request never left (the HTTP client refused it, e.g. a header with a line break).
 */
export type WithdrawalOutcome = 'accepted' | 'refused' | 'rate-limited' | 'unknown' | 'not-sent';

export const WITHDRAWAL_OUTCOMES: readonly WithdrawalOutcome[] = [
  'accepted',
  'refused',
  'rate-limited',
  'unknown',
  'not-sent',
];

export interface LedgerOutcome {
  readonly code: string;
  readonly status: number | null;
  readonly outcome: WithdrawalOutcome;
  readonly providerId?: string;
  readonly note?: string;
}

export interface LedgerWebhook {
  readonly code: string;
  readonly webhookReceived: boolean;
  readonly deliveries: number;
  /** What the deliveries' status field said, in order (`PAID`, `FAILED`), when they carried one. */
  readonly statuses?: readonly string[];
  /** For a refused withdrawal: the check its request served and the status it was refused with. */
  readonly refused?: { readonly checkId: string; readonly status: number };
  /** Every request to the address, the first MAX_LEDGER_ATTEMPTS: WEBHOOK-RETRY-PACE over the whole run. */
  readonly attempts?: readonly PaceAttempt[];
}

export interface LedgerPlan {
  readonly requests: number;
  readonly bound: number;
}

/** Keeps the first two and last two characters, enough for the integrator to recognise their key. */
export function maskPayeeKey(key: string): string {
  return key.length <= 6 ? '***' : `${key.slice(0, 2)}***${key.slice(-2)}`;
}

export class Ledger {
  readonly path: string;

  private readonly runId: string;

  constructor(reportDir: string, runId: string) {
    this.runId = runId;
    this.path = join(reportDir, LEDGER_FILE);
  }

  private append(entry: object): void {
    // The line as JSON will write it, then masked and bounded like a report.
    const line = JSON.parse(
      JSON.stringify({ time: new Date().toISOString(), runId: this.runId, ...entry }),
    ) as JsonValue;
    mkdirSync(dirname(this.path), { recursive: true });
    // Appended to, created if missing, and never through a symbolic link (O_NOFOLLOW).
    const { O_APPEND, O_CREAT, O_NOFOLLOW, O_WRONLY } = constants;
    const fd = openSync(this.path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW);
    try {
      writeSync(fd, `${JSON.stringify(boundedJson(line))}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  intent(entry: LedgerIntent): void {
    this.append({ type: 'intent', ...entry, payeeKey: maskPayeeKey(entry.payeeKey) });
  }

  outcome(entry: LedgerOutcome): void {
    this.append({ type: 'outcome', ...entry });
  }

  webhook(entry: LedgerWebhook): void {
    this.append({ type: 'webhook', ...entry });
  }

  /** The payout plan's count of withdrawal requests and the bound the run keeps, before any is sent. */
  plan(entry: LedgerPlan): void {
    this.append({ type: 'plan', ...entry });
  }
}
