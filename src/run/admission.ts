/**
 * Whether a run may start: its report directory holds nothing the suite would not write, and its
 * payout plan fits the budget. Asked once per run, before anything is sent: by pix-certify, which
 * says so in the run state, or by global setup when Playwright was started directly (npx playwright
 * test, a shard).
 */
import { runState, shareRunState } from '../base/run-state.ts';
import type { Config } from '../config/config.ts';
import type { HeldToken } from '../transport/token-desk.ts';
import { reportDirProblem } from './report-dir.ts';

async function problemOf(config: Config): Promise<string | undefined> {
  const misplaced = reportDirProblem(config.reportDir);
  if (misplaced !== undefined || config.mode !== 'live') return misplaced;
  // The plan loads the whole catalogue: a mock run, which has no budget, need not wait for it.
  const { budgetProblem, planFor } = await import('./plan.ts');
  return budgetProblem(config, planFor(config));
}

/** The reason this run may not start, or undefined once it is admitted (then or earlier in the run). */
export async function admissionProblem(config: Config): Promise<string | undefined> {
  if (runState('admitted') !== undefined) return undefined;
  const problem = await problemOf(config);
  if (problem === undefined) shareRunState({ admitted: '1' });
  return problem;
}

/**
 * pix-certify checks the environment (a remote receiver, the preflight, the credentials) while
 * Playwright's runner loads beside them in its process, and global setup waits for those checks
 * before it starts anything a test uses: no test, token or withdrawal goes out before they pass,
 * and their round trips overlap the runner's start-up instead of preceding it. Playwright loads
 * global setup with a module loader of its own, so the checks are shared through the process, not
 * through this module's state.
 */
const ENVIRONMENT_CHECKS = Symbol.for('pix-certify.environment-checks');

/** What the checks leave the run: the token the credentials' request was issued, and when they last sent. */
export interface EnvironmentChecked {
  readonly token?: HeldToken;
  /** When the last of their requests was answered, in epoch ms: the run's gate counts it in its rate. */
  readonly lastRequestAt?: number;
  /** Where a test POST through the run's public webhook address reached its receiver, once proven. */
  readonly webhooksProven?: string;
}

type WithEnvironmentChecks = typeof globalThis & {
  [ENVIRONMENT_CHECKS]?: Promise<EnvironmentChecked>;
};

export function shareEnvironmentChecks(checks: Promise<EnvironmentChecked>): void {
  (globalThis as WithEnvironmentChecks)[ENVIRONMENT_CHECKS] = checks;
}

/**
 * Once pix-certify's checks of the environment passed, what they leave the run; at once, with
 * nothing, where no checks run (npx playwright test).
 */
export async function environmentChecked(): Promise<EnvironmentChecked> {
  return (await (globalThis as WithEnvironmentChecks)[ENVIRONMENT_CHECKS]) ?? {};
}
