/**
 * Whether a run may start: its report directory holds nothing the suite would not write, and its
 * payout plan fits the budget. Asked once per run, before anything is sent: by pix-certify, which
 * says so in the run state, or by global setup when Playwright was started directly (npx playwright
 * test, a shard).
 */
import { runState, shareRunState } from '../base/run-state.ts';
import type { Config } from '../config/config.ts';
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
