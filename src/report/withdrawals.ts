/**
 * What the run's withdrawals did, from its ledger: how many were sent, each outcome, and for every
 * outcome that is unknown (a 5xx, a time-out, a reset) what its webhooks said. A person signing off
 * reads the money line first: an unknown outcome is a withdrawal that may have been paid.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_FILE, WITHDRAWAL_OUTCOMES, type WithdrawalOutcome } from '../run/ledger.ts';
import type { WatchedRefusal } from '../checks/webhook.ts';
import type { PaceAttempt } from '../checks/webhook-pace.ts';

/** What the webhooks of a withdrawal with an unknown outcome reported. */
export type Reconciliation = 'paid' | 'failed' | 'other' | 'none';

export interface WithdrawalSummary {
  /** The ledger's path, as the run was told it. */
  readonly ledger: string;
  /** Withdrawal requests written to the ledger before they were sent. */
  readonly sent: number;
  /** The payout plan's count of withdrawal requests and the bound the run kept, when the ledger has them. */
  readonly plan?: { readonly requests: number; readonly bound: number };
  readonly outcomes: Readonly<Record<WithdrawalOutcome, number>>;
  /** Each withdrawal whose outcome is unknown, and what its webhooks said. */
  readonly unknown: readonly { readonly code: string; readonly webhook: Reconciliation }[];
  /** Codes accepted again after an earlier acceptance, check_code true: each a possible second payout. */
  readonly paidAgain?: readonly string[];
}

const PAID =
  /^(paid|pago|success|successful|succeeded|completed?|conclu[ií]d[ao]|approved|aprovad[ao]|efetivad[ao]|liquidad[ao]|settled|done)$/i;
const FAILED = /fail|refus|reject|cancel|error|devolv|estorn|denied|recusad|negad/i;

function reconciliation(statuses: readonly string[] | undefined, received: boolean): Reconciliation {
  if (!received) return 'none';
  if ((statuses ?? []).some((s) => PAID.test(s.trim()))) return 'paid';
  if ((statuses ?? []).some((s) => FAILED.test(s))) return 'failed';
  return 'other';
}

interface Line {
  readonly type?: string;
  readonly time?: string;
  readonly runId?: string;
  readonly code?: string;
  readonly outcome?: WithdrawalOutcome;
  readonly webhookReceived?: boolean;
  readonly deliveries?: number;
  readonly statuses?: string[];
  readonly refused?: { readonly checkId?: string; readonly status?: number };
  readonly attempts?: readonly PaceAttempt[];
  readonly checkId?: string;
  readonly checkCode?: boolean;
  readonly requests?: number;
  readonly bound?: number;
}

/** This run's lines of a ledger, which others' runs may share. */
function runLines(text: string, runId: string): Line[] {
  return (
    text
      .split('\n')
      // Only lines that can be this run's are parsed: a report directory's ledger keeps every run's.
      .filter((raw) => raw.includes(runId))
      .flatMap((raw): Line[] => {
        try {
          return raw.trim() === '' ? [] : [JSON.parse(raw) as Line];
        } catch {
          return [];
        }
      })
      .filter((line) => line.runId === runId)
  );
}

/**
 * The withdrawal `code` and when this run's ledger first recorded it accepted (ms since the epoch); where
 * it never was, the run's earliest accepted code instead; undefined if the run has none.
 */
export function acceptedCode(
  text: string,
  runId: string,
  code: string,
): { code: string; at: number } | undefined {
  const accepted = runLines(text, runId).filter(
    (l): l is Line & { code: string; time: string } =>
      l.type === 'outcome' && l.outcome === 'accepted' && l.code !== undefined && l.time !== undefined,
  );
  const line = accepted.find((l) => l.code === code) ?? accepted[0];
  return line === undefined ? undefined : { code: line.code, at: Date.parse(line.time) };
}

/** The refused withdrawals of the run whose address was watched until it ended, with what arrived there. */
export function watchedRefusals(text: string, runId: string): WatchedRefusal[] {
  return runLines(text, runId).flatMap((line): WatchedRefusal[] =>
    line.type === 'webhook' && line.refused !== undefined && typeof line.code === 'string'
      ? [
          {
            code: line.code,
            checkId: String(line.refused.checkId),
            status: typeof line.refused.status === 'number' ? line.refused.status : 0,
            deliveries: typeof line.deliveries === 'number' ? line.deliveries : 0,
            statuses: line.statuses ?? [],
          },
        ]
      : [],
  );
}

/** Each withdrawal's webhook attempts when the run ended; a refused one's webhooks are WEBHOOK-NONE-FOR-REFUSED's. */
export function watchedPaces(
  text: string,
  runId: string,
): { code: string; attempts: readonly PaceAttempt[] }[] {
  return runLines(text, runId).flatMap((line) =>
    line.type === 'webhook' &&
    line.refused === undefined &&
    typeof line.code === 'string' &&
    Array.isArray(line.attempts) &&
    line.attempts.length > 0
      ? [{ code: line.code, attempts: line.attempts }]
      : [],
  );
}

/**
 * The codes accepted again, with check_code true, after an earlier acceptance of the same code, in order:
 * each may have paid twice. A copy without it (the duplicate the suite sends to see check_code false or
 * left out) is expected to be processed.
 */
function acceptedAgain(lines: readonly Line[]): string[] {
  const pending = new Map<string, boolean[]>();
  const accepted = new Set<string>();
  const again: string[] = [];
  for (const line of lines) {
    if (line.code === undefined) continue;
    if (line.type === 'intent')
      pending.set(line.code, [...(pending.get(line.code) ?? []), line.checkCode === true]);
    if (line.type !== 'outcome') continue;
    const checked = pending.get(line.code)?.shift();
    if (line.outcome !== 'accepted') continue;
    if (accepted.has(line.code) && checked === true) again.push(line.code);
    accepted.add(line.code);
  }
  return again;
}

/** The summary of this run's lines of a ledger (others' runs may share the file); undefined when it sent none. */
export function summariseLedger(text: string, runId: string, ledger: string): WithdrawalSummary | undefined {
  const lines = runLines(text, runId);
  const intents = lines.filter((l) => l.type === 'intent');
  if (intents.length === 0) return undefined;
  const outcomes = Object.fromEntries(WITHDRAWAL_OUTCOMES.map((o) => [o, 0])) as Record<
    WithdrawalOutcome,
    number
  >;
  const unknownCodes: string[] = [];
  for (const line of lines.filter((l) => l.type === 'outcome' && l.outcome !== undefined)) {
    const outcome = line.outcome as WithdrawalOutcome;
    outcomes[outcome] += 1;
    if (outcome === 'unknown') unknownCodes.push(line.code ?? '?');
  }
  // An intent with no outcome line: the run stopped while the request was in flight.
  const answered = WITHDRAWAL_OUTCOMES.reduce((sum, o) => sum + outcomes[o], 0);
  outcomes.unknown += Math.max(0, intents.length - answered);
  const webhooks = new Map(lines.filter((l) => l.type === 'webhook').map((l) => [l.code, l]));
  const plan = lines.find((l) => l.type === 'plan');
  const paidAgain = acceptedAgain(lines);
  return {
    ledger,
    sent: intents.length,
    ...(typeof plan?.requests === 'number' && typeof plan.bound === 'number'
      ? { plan: { requests: plan.requests, bound: plan.bound } }
      : {}),
    outcomes,
    unknown: unknownCodes.map((code) => {
      const webhook = webhooks.get(code);
      return { code, webhook: reconciliation(webhook?.statuses, webhook?.webhookReceived === true) };
    }),
    ...(paidAgain.length === 0 ? {} : { paidAgain }),
  };
}

/**
 * The summary of the ledger in the report directory (undefined when the run sent no withdrawal), its
 * refused withdrawals whose webhooks were watched, and every withdrawal's webhook attempts.
 */
export function readLedger(
  reportDir: string,
  runId: string,
  shown: string,
): {
  summary: WithdrawalSummary | undefined;
  refusals: WatchedRefusal[];
  paces: { code: string; attempts: readonly PaceAttempt[] }[];
} {
  const path = join(reportDir, LEDGER_FILE);
  if (!existsSync(path)) return { summary: undefined, refusals: [], paces: [] };
  const text = readFileSync(path, 'utf8');
  return {
    summary: summariseLedger(text, runId, shown),
    refusals: watchedRefusals(text, runId),
    paces: watchedPaces(text, runId),
  };
}

/** What each reconciliation is called on the money line: each under its own word. */
const RECONCILED_AS: Readonly<Record<Reconciliation, string>> = {
  paid: 'reported paid by their webhook',
  failed: 'reported failed by their webhook',
  other: 'with a webhook status that says neither',
  none: 'with no webhook',
};

/** `3 accepted`, or nothing when none: an empty group is never printed. */
const counted = (n: number, what: string): string[] => (n === 0 ? [] : [`${n} ${what}`]);

/** The money line every summary ends with: each group it names holds at least one withdrawal. */
export function withdrawalLine(summary: WithdrawalSummary): string {
  const { outcomes } = summary;
  const answered = [
    ...counted(outcomes.accepted, 'accepted'),
    ...counted(outcomes.refused, 'refused'),
    ...counted(outcomes['rate-limited'], 'rate-limited (not processed)'),
    ...counted(outcomes['not-sent'], 'never left the suite'),
  ];
  const groups = (Object.keys(RECONCILED_AS) as Reconciliation[]).flatMap((as) => {
    const codes = summary.unknown.filter((u) => u.webhook === as).map((u) => u.code);
    return codes.length === 0 ? [] : [`${codes.length} ${RECONCILED_AS[as]}: ${codes.join(', ')}`];
  });
  // An intent with no outcome line has no code on the summary's list: the run stopped while it was in flight.
  groups.push(...counted(outcomes.unknown - summary.unknown.length, 'still in flight when the run stopped'));
  const unknown =
    outcomes.unknown === 0
      ? 'none with an unknown outcome'
      : `${outcomes.unknown} with an UNKNOWN outcome (${groups.join('; ')}); check them with the provider`;
  const planned =
    summary.plan === undefined
      ? ''
      : ` (the plan's ${summary.plan.requests}; at most ${summary.plan.bound} may leave the suite)`;
  const sent =
    answered.length === 0
      ? `${summary.sent} sent${planned}`
      : `${summary.sent} sent${planned}: ${answered.join(', ')}`;
  const again = summary.paidAgain ?? [];
  const twice =
    again.length === 0
      ? ''
      : `; ${again.length} POSSIBLY PAID TWICE (a code accepted again although check_code was true: ${again.join(', ')}); check them with the provider`;
  return `Withdrawals: ${sent}; ${unknown}${twice}. Ledger: ${summary.ledger}`;
}
