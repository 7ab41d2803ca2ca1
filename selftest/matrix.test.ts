/**
 * The fault matrix: the real suite, in live mode, against the reference sandbox once per conforming
 * reading (no FAILED, exit 0, and exactly the withdrawals of the payout plan sent) and once per fault.
 * Each fault declares in sandbox/scenarios.ts the clause it breaks and the checks it must trip: the
 * matrix holds it to that (exit 1 and those checks FAILED, or WARNING for a silent-area fault, or the
 * observation it causes). Every check that can yield FAILED or WARNING must be tripped by at least one
 * fault, so a new check without a fault, or a check weakened until it cannot fail, makes this test fail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { type FaultScenario, SCENARIOS, type Scenario } from '../sandbox/scenarios.ts';
import { catalogue } from '../src/checks/catalogue.ts';
import { withdrawalPlan } from '../src/run/plan.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { sandboxEnv } from './support/live-env.ts';
import { runSuite, type SuiteRun } from './support/run-suite.ts';

/** Checks a fault cannot reach from the loopback sandbox, each with its own proof elsewhere. */
const PROVEN_ELSEWHERE: Readonly<Record<string, string>> = {
  'TRANSPORT-ENCRYPTED': 'selftest/checks.test.ts (a plain-http base URL to another host)',
};

/** Two runs at a time: the machine has two cores and each run is mostly waiting on loopback. */
const PARALLEL_RUNS = 2;

async function runAll(sandbox: RunningSandbox): Promise<Map<string, SuiteRun>> {
  const results = new Map<string, SuiteRun>();
  const queue = [...SCENARIOS];
  const worker = async (): Promise<void> => {
    for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
      const env = sandboxEnv(sandbox, scenario.name, scenario.suiteEnv);
      results.set(
        scenario.name,
        await runSuite(env, ['--workers=1', '--reporter=./reporters/certification.ts']),
      );
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_RUNS }, worker));
  return results;
}

function describeRun(run: SuiteRun): string {
  const flagged = [
    ...run.idsWith('FAILED').map((id) => `FAILED ${id}`),
    ...run.idsWith('WARNING').map((id) => `WARNING ${id}`),
  ];
  return `exit ${run.code}; ${flagged.join(', ') || 'nothing flagged'}\n${run.stderr.slice(-2000)}`;
}

describe('fault matrix', () => {
  let sandbox: RunningSandbox;
  let runs: Map<string, SuiteRun>;

  before(async () => {
    sandbox = await startSandbox();
    runs = await runAll(sandbox);
  });
  after(() => sandbox.close());

  const resultOf = (scenario: Scenario): SuiteRun => {
    const run = runs.get(scenario.name);
    assert.ok(run?.report !== undefined, `no certification for ${scenario.name}: ${run?.stderr ?? ''}`);
    return run;
  };

  const plannedWithdrawals = withdrawalPlan(loadSpec(), 0.01).requests;

  for (const scenario of SCENARIOS.filter((s) => s.kind === 'profile')) {
    it(`passes the conforming reading '${scenario.name}' with no FAILED (exit 0), sending exactly the plan`, () => {
      const run = resultOf(scenario);
      assert.deepEqual(run.idsWith('FAILED'), [], describeRun(run));
      assert.equal(run.code, 0, describeRun(run));
      assert.equal(
        sandbox.withdrawalsReceived(scenario.name),
        plannedWithdrawals,
        'the withdrawals the run sent differ from the payout plan: a family miscounts its withdrawals',
      );
    });
  }

  const faults = SCENARIOS.filter((s): s is FaultScenario => s.kind === 'fault');
  const known = new Set(catalogue().map((c) => c.id));

  for (const scenario of faults) {
    it(`catches the fault '${scenario.name}' (${scenario.clause}: ${scenario.level})`, () => {
      const unknown = scenario.trips.filter((id) => !known.has(id));
      assert.deepEqual(unknown, [], `${scenario.name} declares checks the catalogue does not have`);
      assert.equal(scenario.trips.length === 0, scenario.level === 'OBSERVED', `${scenario.name}: trips`);
      const run = resultOf(scenario);
      for (const id of scenario.trips)
        assert.equal(run.verdictOf(id), scenario.level, `${id} for ${scenario.name}: ${describeRun(run)}`);
      assert.equal(run.code, scenario.level === 'FAILED' ? 1 : 0, describeRun(run));
      if (scenario.level !== 'FAILED') assert.deepEqual(run.idsWith('FAILED'), [], describeRun(run));
      if (scenario.observes !== undefined) {
        const { topic, value } = scenario.observes;
        const observations = (run.report?.observations ?? []) as { topic: string; value: unknown }[];
        assert.ok(
          observations.some((o) => o.topic === topic && o.value === value),
          `${scenario.name} must be observed as ${topic} = ${JSON.stringify(value)}: ${JSON.stringify(observations)}`,
        );
      }
    });
  }

  it('catches every check that can yield FAILED or WARNING with a fault, and prints the matrix', () => {
    const rows = SCENARIOS.map((s) => {
      const run = runs.get(s.name);
      const flagged =
        run === undefined
          ? ['(no run)']
          : [...run.idsWith('FAILED'), ...run.idsWith('WARNING').map((id) => `${id} (W)`)];
      return `  ${s.name.padEnd(32)} exit ${run?.code ?? '?'}  ${flagged.join(', ') || '-'}`;
    });
    process.stdout.write(
      `\nFault matrix (scenario → checks it made FAILED, or WARNING (W)):\n${rows.join('\n')}\n`,
    );

    // A must-check is proven by a fault declared to make it FAILED, a should-check by one declared to
    // make it WARNING; the tests above hold each fault to its declaration.
    const uncaught = catalogue()
      .filter((c) => c.level !== 'observe' && PROVEN_ELSEWHERE[c.id] === undefined)
      .filter(
        (c) =>
          !faults.some(
            (f) => f.trips.includes(c.id) && f.level === (c.level === 'must' ? 'FAILED' : 'WARNING'),
          ),
      )
      .map((c) => `${c.id} (${c.level})`);
    assert.deepEqual(
      uncaught,
      [],
      'checks no fault of the sandbox declares it trips: add a fault to sandbox/scenarios.ts',
    );
  });
});
