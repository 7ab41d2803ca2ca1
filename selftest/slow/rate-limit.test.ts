/**
 * Rate limits, with the suite's defaults. A quota no pacing satisfies (429 to every third request
 * whatever the pace): the run slows to its floor, goes on within its stated wait budget (120 s), then
 * skips what is left as rate-limited: PASSED or INCOMPLETE, never ERROR, within five minutes. A
 * conforming provider that takes 6 requests a second (429 and Retry-After: 1 beyond): the run learns
 * a pace, and the duplicate race still leaves in one burst after a quiet window, since three fit what
 * the provider took in a second: PASSED, exit 0, the race judged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { sandboxEnv } from '../support/live-env.ts';
import { runSuite, type SuiteRun } from '../support/run-suite.ts';

const FIVE_MINUTES_MS = 300_000;

describe('rate limits', () => {
  let sandbox: RunningSandbox;
  const log: string[] = [];
  let quota: SuiteRun;
  let quotaTookMs = 0;
  let sixASecond: SuiteRun;

  before(async () => {
    sandbox = await startSandbox({ log: (line) => log.push(line) });
    const started = Date.now();
    // Both at once: each mostly waits, on the provider's limit or on loopback.
    [quota, sixASecond] = await Promise.all([
      runSuite(sandboxEnv(sandbox, 'quota-every-third'), [], FIVE_MINUTES_MS).then((run) => {
        quotaTookMs = Date.now() - started;
        return run;
      }),
      runSuite(sandboxEnv(sandbox, 'rate-limited-6'), [], FIVE_MINUTES_MS),
    ]);
  });
  after(() => sandbox.close());

  it('a quota no pacing satisfies (429 to every third request): PASSED or INCOMPLETE within five minutes, never ERROR, and says why', () => {
    const run = quota;
    assert.ok(quotaTookMs < FIVE_MINUTES_MS, `took ${quotaTookMs} ms`);
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

  it('a provider taking 6 requests a second (429, Retry-After: 1 beyond): PASSED, exit 0, the race judged', () => {
    const run = sixASecond;
    assert.ok(
      log.some((line) => line.includes('/s/rate-limited-6/') && line.endsWith('-> 429')),
      'the sandbox did rate-limit this run',
    );
    assert.match(run.stderr, /the environment limits its rate: the run now starts one request every/);
    assert.equal(run.verdictOf('CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE'), 'PASSED', run.stdout);
    assert.deepEqual(run.idsWith('SKIPPED'), [], run.stdout);
    assert.equal(run.report?.verdict, 'PASSED', run.stdout);
    assert.equal(run.code, 0, run.stderr);
  });
});
