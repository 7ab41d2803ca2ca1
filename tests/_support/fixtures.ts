/**
 * The one fixture layer of the suite. Costly things (configuration, HTTP client, token, webhook
 * client, the ledger and the payouts it records) are worker-scoped and built lazily; `verify` and
 * `pix` are per test.
 *
 * It extends Playwright's base test type (`_baseTest`), not `test`: the suite opens no browser, and
 * `test`'s thirty browser, context and tracing fixtures cost more than the tests against the mock;
 * without them nothing records a request and its credentials, whatever `--trace` says
 * (selftest/slow/mock-shards.test.ts; docs/performance.md).
 */
import { _baseTest as base } from '@playwright/test';
import PQueue from 'p-queue';
import { HttpClient } from '../../src/transport/http.ts';
import type { Inventor } from '../../src/spec/invent.ts';
import { Ledger } from '../../src/run/ledger.ts';
import { waitUntilAnswering } from '../../src/run/mock/prism.ts';
import { Operations } from '../../src/transport/operations.ts';
import { Payouts } from '../../src/run/payouts.ts';
import { PixClient } from '../../src/run/pix-client.ts';
import { ResponseJudge } from '../../src/run/response-judge.ts';
import { runSeed } from '../../src/run/seed.ts';
import { workerSession, type WorkerSession } from '../../src/run/session.ts';
import { loadSpec, type SpecModel } from '../../src/spec/spec.ts';
import { loadTarget, type Target } from '../../src/run/target.ts';
import { apiTls, receiverTls } from '../../src/transport/tls.ts';
import { CaseStopped, Recorder } from '../../src/run/recorder.ts';
import type { CheckDefinition } from '../../src/checks/vocabulary.ts';
import { WebhookClient } from '../../src/webhook/receiver-client.ts';
import { registerConfigSecrets } from '../../src/config/register-secrets.ts';
import { runState } from '../../src/base/run-state.ts';
import { gateOfThisRun, type RunShared } from '../../src/transport/shared-gate.ts';
import { clocked, WaitClock } from '../../src/transport/wait-clock.ts';
import { redact } from '../../src/secrets/redact.ts';
import { allSettledInOrder } from '../../src/base/settled.ts';

interface WorkerFixtures {
  target: Target;
  spec: SpecModel;
  ledger: Ledger;
  webhooks: WebhookClient;
  operations: Operations;
  payouts: Payouts;
  session: WorkerSession;
  http: HttpClient;
  /** The run's request gate, token desk and withdrawal bound, shared by every worker; the clock of this worker's waits at the gate. */
  shared: RunShared & { clock: WaitClock };
}

/** What one case among a test's cases sends and judges with: its own client, recorder and invented values. */
export interface CaseTools {
  readonly pix: PixClient;
  readonly verify: Recorder;
  readonly invent: Inventor;
}

/**
 * Sends a test's independent cases together (each request still waits for its slot at the run's
 * gate), each judged by its own recorder, so that each verdict names its own request. A case the
 * target cannot judge is SKIPPED with the reason; the test ends when every case has.
 */
export type Together = <Case extends { readonly check: CheckDefinition }>(
  cases: readonly Case[],
  run: (testCase: Case, tools: CaseTools) => Promise<void>,
) => Promise<void>;

interface TestFixtures {
  /** Keeps the time the test's requests wait at the run's gate out of its time limit (auto). */
  pacingAside: undefined;
  /** The test's stream of invented values, from the run's seed. */
  invent: Inventor;
  verify: Recorder;
  pix: PixClient;
  together: Together;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  target: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring pattern.
    async ({}, use) => {
      const target = loadTarget();
      registerConfigSecrets(target.config);
      // The embedded mock may still be loading when the first worker is ready.
      if (target.config.mode === 'mock') await waitUntilAnswering(target.baseUrl);
      await use(target);
    },
    { scope: 'worker' },
  ],
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring pattern.
  spec: [async ({}, use) => use(loadSpec()), { scope: 'worker' }],
  ledger: [
    async ({ target }, use) => use(new Ledger(target.config.reportDir, target.runId)),
    { scope: 'worker' },
  ],
  webhooks: [
    async ({ target }, use) =>
      use(
        new WebhookClient(
          target.webhookControlUrl,
          target.webhookControlToken,
          receiverTls(target.config.tls),
        ),
      ),
    { scope: 'worker' },
  ],
  http: [
    async ({ target }, use) => {
      // Sends exactly what a case gives it, once, and reads at most PIX_MAX_RESPONSE_BYTES (http.ts).
      const client = new HttpClient({
        maxResponseBytes: target.config.maxResponseBytes,
        tokenField: target.config.tokenField,
        tls: apiTls(target.config.tls),
      });
      await use(client);
      client.close();
    },
    { scope: 'worker' },
  ],
  shared: [
    async ({ target }, use) => {
      const url = runState('gateUrl');
      const token = runState('gateToken');
      const shared = url === undefined || token === undefined ? undefined : { url, token };
      const { gate, desk, bound } = gateOfThisRun(target.config, shared, (line) =>
        process.stdout.write(`${redact(line)}\n`),
      );
      const clock = new WaitClock();
      await use({ gate: clocked(gate, clock), desk, bound, clock });
    },
    { scope: 'worker' },
  ],
  operations: [
    async ({ target, http, shared }, use) =>
      use(
        new Operations(http, {
          gate: shared.gate,
          baseUrl: target.baseUrl,
          timeoutMs: target.config.requestTimeoutMs,
          tokenField: target.config.tokenField,
        }),
      ),
    { scope: 'worker' },
  ],
  payouts: [
    async ({ target, ledger, webhooks, shared }, use) => {
      const payouts = new Payouts(target, ledger, shared.bound);
      await use(payouts);
      await payouts.recordWebhooks(webhooks);
    },
    { scope: 'worker' },
  ],
  session: [
    async ({ target, shared }, use, workerInfo) =>
      use(workerSession(shared.desk, target.config, target.runId, workerInfo.workerIndex)),
    { scope: 'worker' },
  ],
  pacingAside: [
    async ({ shared }, use, testInfo) => {
      // No limit while a request waits at the gate (a bounded wait: leases, the run's wait budget); after
      // it, the test's limit plus every wait so far. A limit of 0 (none) stays none.
      const { clock } = shared;
      const limit = testInfo.timeout;
      const heldBefore = clock.heldMs();
      const follow = (): void => testInfo.setTimeout(clock.holding ? 0 : limit + clock.heldMs() - heldBefore);
      const stop = limit === 0 ? () => undefined : clock.onChange(follow);
      try {
        await use(undefined);
      } finally {
        stop();
      }
    },
    { auto: true },
  ],
  invent: async ({ target }, use, testInfo) => {
    // Loaded here, not at the top: the main process imports this module to list the tests and never invents.
    const { Inventor } = await import('../../src/spec/invent.ts');
    await use(Inventor.forTest(runSeed(target.config), testInfo.titlePath));
  },
  verify: async ({ target }, use, testInfo) => {
    const verifier = new Recorder(target, testInfo);
    await use(verifier);
    await verifier.flush();
  },
  pix: async ({ target, spec, operations, payouts, verify, webhooks, session, invent }, use, testInfo) => {
    const judge = new ResponseJudge(spec, verify);
    const { config } = target;
    await use(
      new PixClient({
        config,
        operations,
        payouts,
        judge,
        session,
        webhooks,
        verify,
        invent,
        retry: testInfo.retry,
      }),
    );
  },
  together: async ({ target, session, pix, verify, invent }, use) => {
    await use(async (cases, run) => {
      const runnable = new Set(verify.runnableOrStop(cases.map((c) => c.check)));
      // As many cases at once as the run lets requests be in flight; one at a time once the
      // environment said 429, so that a rate limit is not met again by a burst after each wait.
      const queue = new PQueue({ concurrency: session.rateLimited ? 1 : target.config.concurrency });
      // Every case has settled, its requests answered and recorded, before the first error ends the test.
      await allSettledInOrder(
        cases
          .filter((testCase) => runnable.has(testCase.check))
          .map((testCase) =>
            queue.add(async () => {
              const caseVerify = verify.forCase([testCase.check]);
              const caseInvent = invent.branch(testCase.check.id);
              try {
                await run(testCase, {
                  pix: pix.forCase(caseVerify, caseInvent),
                  verify: caseVerify,
                  invent: caseInvent,
                });
              } catch (error) {
                // The case recorded why it stopped; the others go on.
                if (!(error instanceof CaseStopped)) throw error;
              } finally {
                if (session.rateLimited) queue.concurrency = 1;
              }
            }),
          ),
      );
    });
  },
});
