/**
 * The fault matrix: the real suite, in live mode, against the reference sandbox once per conforming
 * reading (no FAILED, exit 0) and once per fault (exit 1 and the matching check FAILED, or WARNING for
 * a silent-area fault). Every check that can yield FAILED must be caught by at least one fault, so a
 * new check without a fault, or a check weakened until it cannot fail, makes this test fail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { SCENARIOS, type Scenario } from '../sandbox/scenarios.ts';
import { catalogue } from '../tests/_support/checks/catalogue.ts';
import { sandboxEnv } from './support/live-env.ts';
import { runSuite, type SuiteRun } from './support/run-suite.ts';

/** What each fault must make the suite say; a fault may be caught by more checks than listed. */
const CAUGHT_BY: Readonly<Record<string, readonly string[]>> = {
  'token-refuses-valid': ['TOKEN-ISSUED'],
  'token-not-json': ['RESPONSE-JSON', 'TOKEN-FIELD'],
  'token-missing-field': ['TOKEN-FIELD'],
  'token-body-not-object': ['RESPONSE-SCHEMA', 'TOKEN-FIELD'],
  'token-single-use': ['TOKEN-REUSE'],
  'token-ignores-client-id': ['TOKEN-REFUSE-MISSING-CLIENT-ID'],
  'token-any-client-id': ['TOKEN-REFUSE-WRONG-CLIENT-ID'],
  'token-ignores-cert': ['TOKEN-REFUSE-MISSING-CERT-CLIENT'],
  'token-any-cert': ['TOKEN-REFUSE-WRONG-CERT-CLIENT', 'TOKEN-REFUSE-MALFORMED-CERT-CLIENT'],
  'token-5xx-on-missing-credential': ['TOKEN-REFUSE-MISSING-CLIENT-ID', 'TOKEN-REFUSE-MISSING-CERT-CLIENT'],
  'payment-ignores-client-id': ['PAYMENT-REFUSE-MISSING-CLIENT-ID'],
  'payment-any-client-id': ['PAYMENT-REFUSE-WRONG-CLIENT-ID'],
  'payment-ignores-secret': ['PAYMENT-REFUSE-MISSING-CLIENT-SECRET'],
  'payment-any-secret': ['PAYMENT-REFUSE-WRONG-CLIENT-SECRET'],
  'payment-ignores-authorization': ['PAYMENT-REFUSE-MISSING-AUTHORIZATION'],
  'payment-any-scheme': ['PAYMENT-REFUSE-NOT-BEARER-AUTHORIZATION'],
  'payment-any-token': ['PAYMENT-REFUSE-FORGED-AUTHORIZATION', 'PAYMENT-REFUSE-RANDOM-AUTHORIZATION'],
  'payment-status-201': ['PAYMENT-ACCEPTED'],
  'payment-not-json': ['RESPONSE-JSON'],
  'errors-not-json': ['RESPONSE-JSON'],
  'status-422': ['RESPONSE-STATUS-DOCUMENTED', 'PAYMENT-BODY-WRONG-TYPE-AMOUNT'],
  'body-no-type-check': [
    'PAYMENT-BODY-WRONG-TYPE-AMOUNT',
    'PAYMENT-BODY-WRONG-TYPE-CODE',
    'PAYMENT-BODY-WRONG-TYPE-NAME',
    'PAYMENT-BODY-WRONG-TYPE-KEY-TYPE',
    'PAYMENT-BODY-WRONG-TYPE-DOCUMENT',
    'PAYMENT-BODY-WRONG-TYPE-KEY-PIX',
    'PAYMENT-BODY-WRONG-TYPE-POSTBACKURL',
    'PAYMENT-BODY-WRONG-TYPE-CHECK-CODE',
  ],
  'body-5xx': [
    'PAYMENT-BODY-NOT-JSON',
    'PAYMENT-BODY-EMPTY',
    'PAYMENT-BODY-ARRAY',
    'PAYMENT-BODY-WRONG-TYPE-AMOUNT',
  ],
  'body-not-json-accepted': ['PAYMENT-BODY-NOT-JSON', 'PAYMENT-BODY-EMPTY', 'PAYMENT-BODY-ARRAY'],
  'check-code-ignored': ['CHECK-CODE-TRUE-REFUSES-DUPLICATE'],
  'check-code-always': ['CHECK-CODE-FALSE-ALLOWS-DUPLICATE'],
  'accept-5xx': [
    'TOKEN-ACCEPT-MISSING',
    'TOKEN-ACCEPT-NOT-JSON',
    'PAYMENT-ACCEPT-MISSING',
    'PAYMENT-ACCEPT-NOT-JSON',
  ],
  'webhook-none': ['WEBHOOK-DELIVERED'],
  'webhook-wrong-path': ['WEBHOOK-DELIVERED'],
  'webhook-get': ['WEBHOOK-POST'],
  'webhook-not-json': ['WEBHOOK-JSON'],
  'lax-body': [
    'PAYMENT-BODY-MISSING-AMOUNT',
    'PAYMENT-BODY-MISSING-CODE',
    'PAYMENT-BODY-MISSING-NAME',
    'PAYMENT-BODY-MISSING-KEY-TYPE',
    'PAYMENT-BODY-MISSING-DOCUMENT',
    'PAYMENT-BODY-MISSING-KEY-PIX',
    'PAYMENT-BODY-MISSING-POSTBACKURL',
    'PAYMENT-BODY-AMOUNT-ZERO',
    'PAYMENT-BODY-AMOUNT-NEGATIVE',
    'PAYMENT-BODY-AMOUNT-THREE-DECIMALS',
    'PAYMENT-BODY-POSTBACK-NOT-URL',
    'PAYMENT-BODY-KEY-TYPE-UNKNOWN',
    'PAYMENT-BODY-NAME-TOO-LONG',
  ],
  'webhook-anonymous': ['WEBHOOK-REFERS-TO-WITHDRAWAL'],
  'webhook-on-refused': ['WEBHOOK-NONE-FOR-REFUSED'],
  // Duplicates are not shown by the document (§6): recorded as an observation, never a verdict.
  'webhook-duplicate': [],
};

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

  for (const scenario of SCENARIOS.filter((s) => s.kind === 'profile')) {
    it(`passes the conforming reading '${scenario.name}' with no FAILED (exit 0)`, () => {
      const run = resultOf(scenario);
      assert.deepEqual(run.idsWith('FAILED'), [], describeRun(run));
      assert.equal(run.code, 0, describeRun(run));
    });
  }

  for (const scenario of SCENARIOS) {
    if (scenario.kind !== 'fault') continue;
    const expected = CAUGHT_BY[scenario.name];
    it(`catches the fault '${scenario.name}' (${scenario.level})`, () => {
      assert.ok(
        expected !== undefined,
        `the matrix names no check for the fault ${scenario.name}: add it to CAUGHT_BY`,
      );
      const run = resultOf(scenario);
      const verdict = scenario.level === 'FAILED' ? 'FAILED' : 'WARNING';
      for (const id of expected)
        assert.equal(run.verdictOf(id), verdict, `${id} for ${scenario.name}: ${describeRun(run)}`);
      assert.equal(run.code, scenario.level === 'FAILED' ? 1 : 0, describeRun(run));
      if (scenario.level === 'WARNING') assert.deepEqual(run.idsWith('FAILED'), [], describeRun(run));
    });
  }

  it('records duplicate webhooks as an observation, not a verdict', () => {
    const scenario = SCENARIOS.find((s) => s.name === 'webhook-duplicate');
    assert.ok(scenario !== undefined);
    const observations = (resultOf(scenario).report?.observations ?? []) as {
      topic: string;
      value: unknown;
    }[];
    assert.ok(
      observations.some((o) => o.topic === 'webhook.deliveries' && o.value === 2),
      JSON.stringify(observations),
    );
  });

  it('catches every check that can yield FAILED with at least one fault, and prints the matrix', () => {
    const faults = SCENARIOS.filter((s) => s.kind === 'fault').map((s) => ({
      name: s.name,
      run: runs.get(s.name),
    }));
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

    // A must-check is proven by a fault that makes it FAILED; a should-check by one that makes it WARNING.
    const uncaught = catalogue()
      .filter((c) => c.level !== 'observe' && PROVEN_ELSEWHERE[c.id] === undefined)
      .filter(
        (c) =>
          !faults.some(({ run }) => run?.verdictOf(c.id) === (c.level === 'must' ? 'FAILED' : 'WARNING')),
      )
      .map((c) => `${c.id} (${c.level})`);
    assert.deepEqual(
      uncaught,
      [],
      'checks no fault of the sandbox makes fail: add a fault to sandbox/scenarios.ts',
    );
  });
});
