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
import { Ledger } from '../../src/run/ledger.ts';
import { describePlan, planFor, sendsFirstWithdrawal } from '../../src/run/plan.ts';
import { runIdOfThisRun, runState, shareRunState } from '../../src/base/run-state.ts';
import { openReceiverRun } from '../../src/webhook/setup.ts';
import { openSecretsRegistry, registerSecret } from '../../src/secrets/registry.ts';
import { runDesk } from '../../src/run/session.ts';
import { registerConfigSecrets } from '../../src/config/register-secrets.ts';
import { redact } from '../../src/secrets/redact.ts';
import { gateSettingsOf, localGate } from '../../src/transport/gate.ts';
import { serveGate } from '../../src/transport/shared-gate.ts';
import { localBound, type WithdrawalBound } from '../../src/transport/withdrawal-bound.ts';
import type { TokenDesk } from '../../src/transport/token-desk.ts';
import type { Gate } from '../../src/transport/gate.ts';
import type { Config } from '../../src/config/config.ts';
import { markPhase } from '../../src/base/phase.ts';

type Stop = () => Promise<void>;

async function stopAll(stops: Stop[]): Promise<void> {
  for (const stop of stops.reverse()) await stop();
}

/**
 * Sends the run's first withdrawal (src/run/first-withdrawal.ts) through the run's gate, desk and
 * bound; what it returns records the withdrawal's webhooks in the ledger, before the receiver closes.
 */
async function firstWithdrawal(
  config: Config,
  run: { gate: Gate; desk: TokenDesk; bound: WithdrawalBound },
): Promise<Stop> {
  const [{ sendFirstWithdrawal }, { Payouts }, { loadTarget }, { WebhookClient }, http] = await Promise.all([
    import('../../src/run/first-withdrawal.ts'),
    import('../../src/run/payouts.ts'),
    import('../../src/run/target.ts'),
    import('../../src/webhook/receiver-client.ts'),
    import('../../src/transport/http.ts'),
  ]);
  const { Operations } = await import('../../src/transport/operations.ts');
  const { apiTls, receiverTls } = await import('../../src/transport/tls.ts');
  const target = loadTarget(config);
  const client = new http.HttpClient({
    maxResponseBytes: config.maxResponseBytes,
    tokenField: config.tokenField,
    tls: apiTls(config.tls),
  });
  const operations = new Operations(client, {
    gate: run.gate,
    baseUrl: target.baseUrl,
    timeoutMs: config.requestTimeoutMs,
    tokenField: config.tokenField,
  });
  const payouts = new Payouts(target, new Ledger(config.reportDir, target.runId), run.bound);
  const webhooks = new WebhookClient(
    target.webhookControlUrl,
    target.webhookControlToken,
    receiverTls(config.tls),
  );
  const recorded: Stop = async () => {
    await payouts.recordWebhooks(webhooks);
    client.close();
  };
  try {
    await sendFirstWithdrawal({ target, operations, payouts, webhooks, desk: run.desk });
  } catch (error) {
    await recorded();
    throw error;
  }
  return recorded;
}

export default async function globalSetup(_config: FullConfig): Promise<Stop> {
  markPhase('global setup begins');
  const config = configOfThisProcess();
  // pix-certify checks the environment while Playwright loads: nothing starts before they pass.
  const checked = await environmentChecked();
  // First, so that whatever this process or a worker prints from now on is masked.
  openSecretsRegistry();
  registerConfigSecrets(config);
  registerSecret(checked.token?.token, 'token');
  const plan = planFor(config);
  process.stdout.write(`${describePlan(config, plan)}\n`);
  if (checked.webhooksProven !== undefined)
    process.stdout.write(`  proven: a test POST through ${checked.webhooksProven} reached the receiver\n`);
  // pix-certify admitted the run already; started directly, Playwright asks here.
  const refused = await admissionProblem(config);
  if (refused !== undefined) throw new Error(refused);
  const runId = runIdOfThisRun();
  // Before any withdrawal: the money line shows what was sent against the plan and its bound. A run
  // that cannot send one (the mock, no opt-in) writes no ledger.
  if (sendsFirstWithdrawal(config))
    new Ledger(config.reportDir, runId).plan({ requests: plan.requests, bound: plan.bound });
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
    const run = {
      gate: localGate(gateSettingsOf(config), tell, { sentBefore: checked.lastRequestAt }),
      desk: await runDesk(checked.token),
      // The plan's bound holds for every withdrawal of the run, the first one's included.
      bound: localBound(plan.bound),
    };
    const served = await serveGate(run.gate, config.requestTimeoutMs + 5_000, run.desk, run.bound);
    stops.push(() => served.close());
    shareRunState({ gateUrl: served.url, gateToken: served.token });
    const receiver = await openReceiverRun(config);
    stops.push(() => receiver.close());
    shareRunState({ webhookControlUrl: receiver.runUrl, webhookControlToken: receiver.token });
    if (sendsFirstWithdrawal(config)) stops.push(await firstWithdrawal(config, run));
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
  markPhase('global setup ends');
  return () => stopAll(stops);
}
