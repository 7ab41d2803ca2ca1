/**
 * The fault matrix (selftest/slow/matrix.test.ts runs it, selftest/matrix.test.ts holds its declarations): the real suite, in live mode, against the reference sandbox once per conforming
 * reading (no FAILED, exit 0, and exactly the withdrawals of the payout plan sent) and once per fault.
 * Each fault declares in sandbox/scenarios.ts the clause it breaks and the checks it must trip: the
 * matrix holds it to that (exit 1 and those checks FAILED, or WARNING for a silent-area fault, or the
 * observation it causes). Every check that can yield FAILED or WARNING must be tripped by at least one
 * fault, so a new check without a fault, or a check weakened until it cannot fail, makes this test fail.
 * Beyond what a fault declares, every scenario gets exactly its verdict band (support/verdict-bands.ts):
 * the FAILED and WARNING checks and the observations, so a verdict lost or gained anywhere shows.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { type FaultScenario, SCENARIOS, type Scenario } from '../../sandbox/scenarios.ts';
import { catalogue } from '../../src/checks/catalogue.ts';
import { planFor } from '../../src/run/plan.ts';
import { loadConfig } from '../../src/config/config.ts';
import { sandboxEnv } from './live-env.ts';
import { runSuite, type SuiteRun } from './run-suite.ts';
import {
  ANY_VALUE,
  MAYBE,
  BANDS,
  type ExpectedObservation,
  Matching,
  matches,
  NOT_RECORDED,
  REFERENCE_OBSERVATIONS,
  Several,
} from './verdict-bands.ts';

/** Checks a fault cannot reach from the loopback sandbox, each with its own proof elsewhere. */
const PROVEN_ELSEWHERE: Readonly<Record<string, string>> = {
  'TRANSPORT-ENCRYPTED': 'selftest/checks.test.ts (a plain-http base URL to another host)',
};

/** Two runs at a time: the machine has two cores and each run is mostly waiting on loopback. */
const PARALLEL_RUNS = 2;

/** A scenario that spends the run's wait budget takes longer than the others. */
const RUN_TIMEOUT_MS = 240_000;

async function runAll(
  sandbox: RunningSandbox,
  scenarios: readonly Scenario[],
): Promise<Map<string, SuiteRun>> {
  const results = new Map<string, SuiteRun>();
  const queue = [...scenarios];
  const worker = async (): Promise<void> => {
    for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
      const env = sandboxEnv(sandbox, scenario.name, scenario.suiteEnv);
      results.set(scenario.name, await runSuite(env, ['--workers=1'], RUN_TIMEOUT_MS));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_RUNS }, worker));
  return results;
}

const sorted = (ids: readonly string[]): string[] => [...ids].sort();

/** Each observation as JSON, by topic, so that two runs compare whatever order their tests ran in. */
function observationsOf(run: SuiteRun): Map<string, string[]> {
  const byTopic = new Map<string, string[]>();
  for (const { topic, value } of (run.report?.observations ?? []) as { topic: string; value: unknown }[])
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), JSON.stringify(value)]);
  return byTopic;
}

/** Where the observations of a run differ from its band, one line per topic. */
function observationDifferences(
  run: SuiteRun,
  expected: Readonly<Record<string, ExpectedObservation>>,
): string[] {
  const actual = observationsOf(run);
  const topics = [...new Set([...Object.keys(expected), ...actual.keys()])].sort();
  return topics.flatMap((topic) => {
    const want = expected[topic] ?? NOT_RECORDED;
    const got = actual.get(topic);
    if (want === MAYBE) return [];
    const shown = got === undefined ? 'not recorded' : got.join(' and ');
    if (want === NOT_RECORDED) return got === undefined ? [] : [`${topic}: ${shown}, expected none`];
    if (got === undefined) return [`${topic}: not recorded`];
    if (want === ANY_VALUE) return [];
    if (want instanceof Matching)
      return got.length === 1 && matches(JSON.parse(got[0] ?? 'null'), want.pattern)
        ? []
        : [`${topic}: ${shown}, expected one matching ${JSON.stringify(want.pattern)}`];
    const values = (want instanceof Several ? want.values : [want]).map((v) => JSON.stringify(v));
    return JSON.stringify(sorted(got)) === JSON.stringify(sorted(values))
      ? []
      : [`${topic}: ${shown}, expected ${values.join(' and ')}`];
  });
}

function describeRun(run: SuiteRun): string {
  const flagged = [
    ...run.idsWith('FAILED').map((id) => `FAILED ${id}`),
    ...run.idsWith('WARNING').map((id) => `WARNING ${id}`),
  ];
  return `exit ${run.code}; ${flagged.join(', ') || 'nothing flagged'}\n${run.stderr.slice(-2000)}`;
}

/** The matrix's runs and their tests for `scenarios`, inside the caller's describe. */
export function faultMatrixRuns(scenarios: readonly Scenario[]): void {
  let sandbox: RunningSandbox;
  let runs: Map<string, SuiteRun>;

  before(async () => {
    sandbox = await startSandbox();
    runs = await runAll(sandbox, scenarios);
  });
  after(() => sandbox.close());

  const resultOf = (scenario: Scenario): SuiteRun => {
    const run = runs.get(scenario.name);
    assert.ok(run?.report !== undefined, `no certification for ${scenario.name}: ${run?.stderr ?? ''}`);
    return run;
  };

  for (const scenario of scenarios.filter((s) => s.kind === 'profile')) {
    it(`passes the conforming reading '${scenario.name}' with no FAILED (exit 0), sending exactly the plan`, () => {
      const run = resultOf(scenario);
      assert.deepEqual(run.idsWith('FAILED'), [], describeRun(run));
      assert.equal(run.code, 0, describeRun(run));
      // The plan of the run's own configuration: a probe it turns on adds its withdrawals.
      const plan = planFor(loadConfig(sandboxEnv(sandbox, scenario.name, scenario.suiteEnv)));
      assert.equal(
        sandbox.withdrawalsReceived(scenario.name),
        plan.requests,
        'the withdrawals the run sent differ from the payout plan: a family miscounts its withdrawals',
      );
    });
  }

  const faults = scenarios.filter((s): s is FaultScenario => s.kind === 'fault');
  const known = new Set(catalogue('provider').map((c) => c.id));

  for (const scenario of faults) {
    it(`catches the fault '${scenario.name}' (${scenario.clause}: ${scenario.level})`, () => {
      const unknown = scenario.trips.filter((id) => !known.has(id));
      assert.deepEqual(unknown, [], `${scenario.name} declares checks the catalogue does not have`);
      assert.equal(scenario.trips.length === 0, scenario.level === 'OBSERVED', `${scenario.name}: trips`);
      const run = resultOf(scenario);
      for (const id of scenario.trips)
        assert.equal(run.verdictOf(id), scenario.level, `${id} for ${scenario.name}: ${describeRun(run)}`);
      // A run the environment left incomplete fails closed too, unless the scenario turns that off.
      const failsClosed =
        BANDS[scenario.name]?.incomplete === true && scenario.suiteEnv.PIX_REQUIRE_COMPLETE !== '0';
      assert.equal(run.code, scenario.level === 'FAILED' || failsClosed ? 1 : 0, describeRun(run));
      if (scenario.level !== 'FAILED') assert.deepEqual(run.idsWith('FAILED'), [], describeRun(run));
      if (scenario.observes !== undefined) {
        const { topic, value } = scenario.observes;
        const observations = (run.report?.observations ?? []) as { topic: string; value: unknown }[];
        assert.ok(
          observations.some((o) => o.topic === topic && matches(o.value, value)),
          `${scenario.name} must be observed as ${topic} = ${JSON.stringify(value)}: ${JSON.stringify(observations)}`,
        );
      }
    });
  }

  if (scenarios.some((s) => s.name === 'webhook-statuses'))
    it('matches webhooks posted before the withdrawal was answered, as ever (webhook-statuses)', () => {
      const run = resultOf(
        scenarios.find((s) => s.name === 'webhook-statuses') ?? assert.fail('no scenario'),
      );
      for (const id of ['WEBHOOK-DELIVERED', 'WEBHOOK-REFERS-TO-WITHDRAWAL', 'WEBHOOK-MATCHES-WITHDRAWAL'])
        assert.equal(run.verdictOf(id), 'PASSED', `${id}: ${describeRun(run)}`);
    });

  for (const scenario of scenarios) {
    const band = BANDS[scenario.name];
    it(`gives '${scenario.name}' exactly its band: ${band?.failed.length ?? '?'} FAILED, ${band?.warning.length ?? '?'} WARNING, its observations`, () => {
      assert.ok(band !== undefined, `no band for ${scenario.name} in selftest/support/verdict-bands.ts`);
      const run = resultOf(scenario);
      assert.deepEqual(
        { failed: sorted(run.idsWith('FAILED')), warning: sorted(run.idsWith('WARNING')) },
        { failed: sorted(band.failed), warning: sorted(band.warning) },
        `${scenario.name}: the verdicts differ from its band`,
      );
      // Live runs require completeness (PIX_REQUIRE_COMPLETE=1) unless the scenario turns it off.
      const failsClosed = band.incomplete === true && scenario.suiteEnv.PIX_REQUIRE_COMPLETE !== '0';
      assert.equal(run.code, band.failed.length > 0 || failsClosed ? 1 : 0, describeRun(run));
      const verdict =
        band.failed.length > 0
          ? 'FAILED'
          : band.incomplete === true
            ? 'INCOMPLETE'
            : band.warning.length > 0
              ? 'WARNING'
              : 'PASSED';
      assert.equal(run.report?.verdict, verdict, describeRun(run));
      if (band.failed.length === 0)
        assert.equal(run.report.complete, band.incomplete !== true, `${scenario.name}: complete`);
      assert.deepEqual(run.report.suiteErrors, [], 'no suite error hides behind a FAILED');
      assert.deepEqual(
        observationDifferences(run, { ...REFERENCE_OBSERVATIONS, ...band.observes }),
        [],
        `${scenario.name}: the observations differ from its band`,
      );
    });
  }

  it('prints the matrix', () => {
    const rows = scenarios.map((s) => {
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
  });
}

/** What the matrix holds every scenario to without running any: a band each, and a fault for every check. */
export function faultMatrixDeclarations(): void {
  const faults = SCENARIOS.filter((s): s is FaultScenario => s.kind === 'fault');

  it('has a verdict band for every scenario, and none for a scenario that is gone', () => {
    assert.deepEqual(sorted(Object.keys(BANDS)), sorted(SCENARIOS.map((s) => s.name)));
  });

  it('declares a fault for every check that can yield FAILED or WARNING', () => {
    // A must-check is proven by a fault declared to make it FAILED, a should-check by one declared to
    // make it WARNING; the runs hold each fault to its declaration.
    const uncaught = catalogue('provider')
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
}
