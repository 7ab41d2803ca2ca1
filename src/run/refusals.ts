/**
 * The run's refused withdrawals that named one of its webhook addresses, read back from the ledger,
 * which every worker writes: what WEBHOOK-NONE-FOR-REFUSED watches once every other test has ended.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_FILE } from './ledger.ts';

export interface Refusal {
  readonly code: string;
  readonly checkId: string;
  readonly status: number;
  readonly webhookPath: string;
  /** When the refusal was written, in epoch ms: its webhooks are watched for the run's wait after it. */
  readonly at: number;
}

interface Line {
  readonly type?: unknown;
  readonly runId?: unknown;
  readonly time?: unknown;
  readonly code?: unknown;
  readonly checkId?: unknown;
  readonly webhookPath?: unknown;
  readonly outcome?: unknown;
  readonly status?: unknown;
}

const parsed = (raw: string): Line[] => {
  try {
    const line: unknown = JSON.parse(raw);
    return line !== null && typeof line === 'object' ? [line] : [];
  } catch {
    return [];
  }
};

/** This run's refused withdrawals with a webhook address, in the order they were last answered. */
export function refusalsOf(ledgerText: string, runId: string): Refusal[] {
  const lines = ledgerText
    .split('\n')
    .filter((raw) => raw.includes(runId))
    .flatMap(parsed)
    .filter((line) => line.runId === runId);
  const intents = new Map(
    lines
      .filter((l) => l.type === 'intent' && typeof l.code === 'string' && typeof l.webhookPath === 'string')
      .map((l) => [l.code as string, l]),
  );
  // A code's last outcome is the withdrawal's: one refused for a dead token and accepted once renewed was not refused.
  const last = new Map(
    lines.filter((l) => l.type === 'outcome' && typeof l.code === 'string').map((l) => [l.code as string, l]),
  );
  return [...last.values()].flatMap((line): Refusal[] => {
    const intent = intents.get(line.code as string);
    if (line.outcome !== 'refused' || intent === undefined) return [];
    return [
      {
        code: line.code as string,
        checkId: String(intent.checkId),
        status: typeof line.status === 'number' ? line.status : 0,
        webhookPath: intent.webhookPath as string,
        at: typeof line.time === 'string' ? Date.parse(line.time) : Date.now(),
      },
    ];
  });
}

/** The refusals in the ledger of the report directory. */
export function readRefusals(reportDir: string, runId: string): Refusal[] {
  const path = join(reportDir, LEDGER_FILE);
  return existsSync(path) ? refusalsOf(readFileSync(path, 'utf8'), runId) : [];
}
