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

/** What the checks leave the run: the token the credentials' request was issued, and when they last sent. */
export interface EnvironmentChecked {
  readonly token?: HeldToken;
  /** When the last of their requests was answered, in epoch ms: the run's gate counts it in its rate. */
  readonly lastRequestAt?: number;
}

/**
 * Once pix-certify's checks of the environment passed, what they leave the run; at once, with nothing,
 * where no checks run (npx playwright test). pix-certify checks the environment while Playwright's
 * runner loads in its child process, and answers global setup's question over their IPC channel once
 * they pass: no test, token or withdrawal goes out before.
 */
export async function environmentChecked(): Promise<EnvironmentChecked> {
  const send = process.send?.bind(process);
  if (runState('environmentChecks') !== 'ipc' || send === undefined) return {};
  // pix-certify serves the mock and waits for this run: should it end first (even killed), so does the run.
  process.once('disconnect', () => {
    process.stderr.write('pix-certify: pix-certify ended before its run; the run stops with it.\n');
    process.exit(2);
  });
  return new Promise((resolve) => {
    process.once('message', (message: { environmentChecked?: EnvironmentChecked }) => {
      // The channel stays open only to tell that pix-certify ended: it must not keep the runner alive.
      process.channel?.unref();
      resolve(message.environmentChecked ?? {});
    });
    send({ ready: true });
  });
}
