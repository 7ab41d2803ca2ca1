/**
 * Prints the payout plan and refuses one over budget (again, for runs started with npx playwright
 * test rather than bin/certify.ts), then starts what a run needs before any test (the embedded mock
 * in mock mode, the webhook receiver) and stops it after the last one, also when the run fails or
 * is interrupted. Workers learn the addresses, and where the run's secrets registry is, through the
 * run state (src/base/run-state.ts).
 */
import type { FullConfig } from '@playwright/test';
import { configOfThisProcess } from '../../src/config/config.ts';
import { startMock } from '../../src/run/mock/prism.ts';
import { serveMockFront } from '../../src/run/mock/front.ts';
import { admissionProblem, environmentChecked } from '../../src/run/admission.ts';
import { describePlan, planFor } from '../../src/run/plan.ts';
import { runIdOfThisRun, runState, shareRunState } from '../../src/base/run-state.ts';
import { openReceiverRun } from '../../src/webhook/setup.ts';
import { openSecretsRegistry, registerSecret } from '../../src/secrets/registry.ts';
import { runDesk } from '../../src/run/session.ts';
import { registerConfigSecrets } from '../../src/config/register-secrets.ts';
import { redact } from '../../src/secrets/redact.ts';
import { gateSettingsOf, localGate } from '../../src/transport/gate.ts';
import { serveGate } from '../../src/transport/shared-gate.ts';

type Stop = () => Promise<void>;

async function stopAll(stops: Stop[]): Promise<void> {
  for (const stop of stops.reverse()) await stop();
}

export default async function globalSetup(_config: FullConfig): Promise<Stop> {
  const config = configOfThisProcess();
  // pix-certify checks the environment while Playwright loads: nothing starts before they pass.
  const checked = await environmentChecked();
  // First, so that whatever this process or a worker prints from now on is masked.
  openSecretsRegistry();
  registerConfigSecrets(config);
  registerSecret(checked.token?.token, 'token');
  process.stdout.write(`${describePlan(config, planFor(config))}\n`);
  // pix-certify admitted the run already; started directly, Playwright asks here.
  const refused = await admissionProblem(config);
  if (refused !== undefined) throw new Error(refused);
  runIdOfThisRun();
  const stops: Stop[] = [];
  try {
    // npm run certify launched Prism before Playwright and stops it; the workers wait until it answers,
    // so that their own start-up overlaps Prism's.
    if (config.mode === 'mock' && runState('mockUrl') === undefined) {
      const mock = await startMock();
      stops.push(() => mock.stop());
      const front = await serveMockFront({ upstream: mock.url });
      stops.push(() => front.close());
      shareRunState({ mockUrl: front.url });
    }
    // One gate for every worker's requests: the run's limits hold across processes, counting the
    // environment checks' requests; its token desk starts with the token the credentials check was issued.
    const tell = (line: string): boolean => process.stderr.write(`pix-certify: ${redact(line)}\n`);
    const gate = await serveGate(
      localGate(gateSettingsOf(config), tell, { sentBefore: checked.lastRequestAt }),
      config.requestTimeoutMs + 5_000,
      await runDesk(checked.token),
    );
    stops.push(() => gate.close());
    shareRunState({ gateUrl: gate.url, gateToken: gate.token });
    const receiver = await openReceiverRun(config);
    stops.push(() => receiver.close());
    shareRunState({ webhookControlUrl: receiver.runUrl, webhookControlToken: receiver.token });
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
  return () => stopAll(stops);
}
