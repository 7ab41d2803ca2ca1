/**
 * A quota no pacing satisfies, with the suite's defaults: the sandbox answers every third request
 * 429 whatever the pace. The run slows to its floor, goes on within its stated wait budget (120 s),
 * then skips what is left as rate-limited: PASSED or INCOMPLETE, never ERROR, within five minutes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { sandboxEnv } from '../support/live-env.ts';
import { runSuite, type SuiteRun } from '../support/run-suite.ts';

const FIVE_MINUTES_MS = 300_000;

describe('a quota no pacing satisfies (429 to every third request)', () => {
  let sandbox: RunningSandbox;
  let run: SuiteRun;
  let tookMs = 0;

  before(async () => {
    sandbox = await startSandbox();
    const started = Date.now();
    run = await runSuite(sandboxEnv(sandbox, 'quota-every-third'), [], FIVE_MINUTES_MS);
    tookMs = Date.now() - started;
  });
  after(() => sandbox.close());

  it('ends PASSED or INCOMPLETE within five minutes, never ERROR, and says why', () => {
    assert.ok(tookMs < FIVE_MINUTES_MS, `took ${tookMs} ms`);
    assert.ok(['PASSED', 'INCOMPLETE'].includes(run.report?.verdict ?? ''), `${run.stdout}\n${run.stderr}`);
    assert.deepEqual(run.report?.suiteErrors, []);
    assert.deepEqual(run.idsWith('FAILED'), []);
    assert.match(run.stderr, /the run goes on at it within its wait budget of 120 s in all/);
    if (run.report.verdict === 'INCOMPLETE') {
      assert.match(run.stderr, /wait budget of 120 s for the environment's rate limit is spent/);
      assert.match(run.stdout.replace(/\s+/g, ' '), /SKIPPED \d+ checks?: not judged, rate-limited/);
      const incomplete = run.report.incomplete as { cause: string }[];
      assert.deepEqual(
        incomplete.map((i) => i.cause),
        ['environment'],
      );
    }
  });
});
