/**
 * A webhook sent with GET that declares a body it never sends (content-length, then nothing): the
 * run judges its method at once. With a webhook wait of two minutes and the run bounded at ninety
 * seconds, a run that waited for the body, or for the wait to run out, would be stopped and write no
 * report.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { sandboxEnv } from '../support/live-env.ts';
import { runSuite, type SuiteRun } from '../support/run-suite.ts';

describe('a GET webhook with a declared body (sandbox fault webhook-get-declared-body)', () => {
  let sandbox: RunningSandbox;
  let run: SuiteRun;
  before(
    async () => {
      sandbox = await startSandbox();
      run = await runSuite(
        sandboxEnv(sandbox, 'webhook-get-declared-body', { PIX_WEBHOOK_TIMEOUT_MS: '120000' }),
        [],
        90_000,
      );
    },
    { timeout: 150_000 },
  );
  after(() => sandbox.close());

  it('is WEBHOOK-POST FAILED once, expected POST and got GET, and the run ends (exit 1)', () => {
    assert.equal(run.code, 1, run.stderr);
    const check = run.report?.checks.find((c) => c.id === 'WEBHOOK-POST') as
      | { verdict: string; evidenceCount?: number; evidence?: { expected?: string; actual?: string }[] }
      | undefined;
    assert.equal(check?.verdict, 'FAILED');
    assert.equal(check.evidenceCount, 1);
    const [evidence] = check.evidence ?? [];
    assert.equal(evidence?.expected, 'POST');
    assert.match(evidence.actual ?? '', /^GET \/\S+ \(no content-type, 0 bytes of \d+ declared, not awaited/);
  });

  it('is no other finding: the webhook reached its address, its body is not judged', () => {
    assert.deepEqual(run.idsWith('FAILED'), ['WEBHOOK-POST']);
    assert.equal(run.verdictOf('WEBHOOK-DELIVERED'), 'PASSED');
  });
});
