/**
 * The run state: what one process of a run hands the next, the only values that cross processes
 * besides the user's PIX_* variables. The CLI starts Playwright's runner, whose global setup starts
 * the mock and the receiver and opens the secrets registry; the workers and the reporter read what
 * it decided. They travel as environment variables because Playwright gives its workers nothing
 * else; this module owns their names, and no other module reads or writes them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Each value of the run state and the internal variable that carries it to child processes. */
const CARRIERS = {
  /** The id in every withdrawal code and ledger line of the run. */
  runId: 'PIX_RUN_ID',
  /** The embedded mock's address (mock mode). */
  mockUrl: 'PIX_MOCK_URL',
  /** The run's address on the webhook receiver's control API, and its token. */
  webhookControlUrl: 'PIX_WEBHOOK_CONTROL_URL',
  webhookControlToken: 'PIX_WEBHOOK_CONTROL_TOKEN',
  /** Playwright's private output directory, never inside the report directory. */
  outputDir: 'PIX_OUTPUT_DIR',
  /** The directory of the run's secrets registry, shared by every process that prints. */
  secretsDir: 'PIX_SECRETS_DIR',
  /** The run's request gate (transport/shared-gate.ts), and its token. */
  gateUrl: 'PIX_GATE_URL',
  gateToken: 'PIX_GATE_TOKEN',
  /** Set once the report directory and the budget were checked (run/admission.ts). */
  admitted: 'PIX_RUN_ADMITTED',
  /** The OpenAPI document's hash and, after a newline, the document as JSON (spec/spec.ts). */
  specDocument: 'PIX_SPEC_DOCUMENT',
  /** Where the reporter leaves the run's outcome for the CLI that started it. */
  outcomeFile: 'PIX_RUN_OUTCOME_FILE',
} as const;

export type RunStateKey = keyof typeof CARRIERS;
export type RunState = { readonly [key in RunStateKey]?: string | undefined };

/** Not part of the user's interface: a PIX_* name the configuration must not call unknown. */
export const INTERNAL_VARIABLES: readonly string[] = Object.values(CARRIERS);

/** One value of this process's run state; undefined when no earlier process decided it. */
export function runState(key: RunStateKey): string | undefined {
  const value = process.env[CARRIERS[key]];
  return value === undefined || value === '' ? undefined : value;
}

/** One value that this process must have been handed; its absence means the suite was started wrongly. */
export function requiredRunState(key: RunStateKey): string {
  const value = runState(key);
  if (value === undefined)
    throw new Error(
      `${CARRIERS[key]} is not set: run the suite with pix-certify (or npx playwright test), whose global setup sets it.`,
    );
  return value;
}

/** Decides values for this process and every process it starts from now on. */
export function shareRunState(state: RunState): void {
  for (const [key, value] of Object.entries(state) as [RunStateKey, string | undefined][])
    if (value !== undefined) process.env[CARRIERS[key]] = value;
}

/** The run state as environment variables, for a child process started with an environment of its own. */
export function runStateEnvironment(state: RunState): Record<string, string> {
  return Object.fromEntries(
    (Object.entries(state) as [RunStateKey, string | undefined][])
      .filter((entry): entry is [RunStateKey, string] => entry[1] !== undefined)
      .map(([key, value]) => [CARRIERS[key], value]),
  );
}

/** The run's id, decided by the first process that asks (Playwright's runner, loading its config). */
export function runIdOfThisRun(): string {
  const decided = runState('runId');
  if (decided !== undefined) return decided;
  const runId = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  shareRunState({ runId });
  return runId;
}

/** What the reporter tells the CLI that started the run, once every report is written. */
export interface RunOutcome {
  readonly verdict: string;
  readonly exitCode: number;
}

/** Leaves the outcome where the CLI asked for it; a run started without the CLI (merge-reports) asked for none. */
export function tellRunOutcome(outcome: RunOutcome): void {
  const path = runState('outcomeFile');
  if (path !== undefined) writeFileSync(path, JSON.stringify(outcome), { mode: 0o600 });
}

/** The outcome the reporter left at `path`, or undefined when it wrote none (no report, other reporters). */
export function readRunOutcome(path: string): RunOutcome | undefined {
  if (!existsSync(path)) return undefined;
  const outcome = JSON.parse(readFileSync(path, 'utf8')) as Partial<RunOutcome>;
  return typeof outcome.exitCode === 'number' && typeof outcome.verdict === 'string'
    ? { verdict: outcome.verdict, exitCode: outcome.exitCode }
    : undefined;
}
