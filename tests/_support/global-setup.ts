/**
 * Prints the payout plan and refuses one over budget (again, for runs started with npx playwright
 * test rather than bin/certify.ts), then starts what a run needs before any test (the embedded mock
 * in mock mode, the webhook receiver) and stops it after the last one, also when the run fails or
 * is interrupted. Workers learn the addresses, and where the run's secrets registry is, through PIX_*
 * variables set here.
 */
import type { FullConfig } from '@playwright/test';
import { reportDirProblem } from '../../src/report/files.ts';
import { loadConfig } from '../../src/config/config.ts';
import { startMock } from '../../src/run/mock/prism.ts';
import { budgetProblem, describePlan, planFor } from '../../src/run/plan.ts';
import { openSecretsRegistry, registerConfigSecrets } from '../../src/secrets/redact.ts';
import { newRunId } from '../../src/run/target.ts';
import { openReceiverRun } from '../../src/webhook/setup.ts';

type Stop = () => Promise<void>;

async function stopAll(stops: Stop[]): Promise<void> {
  for (const stop of stops.reverse()) await stop();
}

export default async function globalSetup(_config: FullConfig): Promise<Stop> {
  const config = loadConfig();
  // First, so that whatever this process or a worker prints from now on is masked.
  openSecretsRegistry();
  registerConfigSecrets(config);
  const misplaced = reportDirProblem(config.reportDir);
  if (misplaced !== undefined) throw new Error(misplaced);
  const plan = planFor(config);
  process.stdout.write(`${describePlan(config, plan)}\n`);
  const problem = budgetProblem(config, plan);
  if (problem !== undefined) throw new Error(problem);
  process.env.PIX_RUN_ID ??= newRunId();
  const stops: Stop[] = [];
  try {
    // npm run certify launched Prism before Playwright and stops it; the workers wait until it answers,
    // so that their own start-up overlaps Prism's.
    if (config.mode === 'mock' && process.env.PIX_MOCK_URL === undefined) {
      const mock = await startMock();
      stops.push(() => mock.stop());
      process.env.PIX_MOCK_URL = mock.url;
    }
    const receiver = await openReceiverRun(config);
    stops.push(() => receiver.close());
    process.env.PIX_WEBHOOK_CONTROL_URL = receiver.runUrl;
    process.env.PIX_WEBHOOK_CONTROL_TOKEN = receiver.token;
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
  return () => stopAll(stops);
}
