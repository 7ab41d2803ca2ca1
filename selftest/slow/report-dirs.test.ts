/**
 * A report directory as a repository or CI keeps it, used by the commands one after the other against
 * the sandbox: a reports/ holding .gitkeep takes `lifetime` and then two certifications; the second
 * certification's money line counts only its own lines of the ledger both share; and with
 * PIX_REPORT_DIR=<dir>/{runId} each run keeps a directory of its own, which `history <dir>` reads as
 * it is, the same run given twice counted once.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { ROOT } from '../../src/base/paths.ts';
import type { Certification } from '../../src/report/model.ts';
import { sandboxEnv } from '../support/live-env.ts';
import { cleanEnvironment, runCommand, runSuite, type SuiteRun } from '../support/run-suite.ts';
import { temporaryDir } from '../support/temporary.ts';

const certificationOf = (run: SuiteRun): Certification => run.report as unknown as Certification;

describe('a report directory kept in a repository, used by every command', () => {
  let sandbox: RunningSandbox;
  let work: string;
  let reports: string;
  let lifetime: SuiteRun;
  let first: SuiteRun;
  let second: SuiteRun;
  let kept: SuiteRun[];
  let history: SuiteRun;

  before(
    async () => {
      sandbox = await startSandbox();
      work = temporaryDir('pix-report-dirs-');
      reports = join(work, 'reports');
      mkdirSync(reports);
      writeFileSync(join(reports, '.gitkeep'), '');
      const env = sandboxEnv(sandbox, 'reference', { PIX_REPORT_DIR: reports, PIX_REQUIRE_COMPLETE: '0' });
      lifetime = await runCommand(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'lifetime.ts'), '--max', '2s'], {
        cwd: ROOT,
        env: cleanEnvironment(env),
        timeoutMs: 60_000,
        reportDir: reports,
      });
      first = await runSuite(env, ['--grep', '@payout']);
      second = await runSuite(env, ['--grep', '@payout']);
      const eachRun = sandboxEnv(sandbox, 'reference', { PIX_REPORT_DIR: join(work, 'runs', '{runId}'), PIX_REQUIRE_COMPLETE: '0' });
      kept = [await runSuite(eachRun, ['--grep', '@smoke']), await runSuite(eachRun, ['--grep', '@smoke'])];
      const runs = join(work, 'runs');
      const [one = ''] = readdirSync(runs);
      history = await runCommand(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'history.ts'), runs, join(runs, one), '--out', join(work, 'history.html')], {
        cwd: ROOT,
        env: cleanEnvironment({}),
        timeoutMs: 60_000,
        reportDir: work,
      });
    },
    { timeout: 280_000 },
  ); // prettier-ignore
  after(async () => {
    await sandbox.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('takes lifetime, then a certification, in a reports/ that holds .gitkeep', () => {
    assert.equal(lifetime.code, 0, lifetime.stdout + lifetime.stderr);
    assert.ok(readdirSync(reports).some((name) => name.startsWith('lifetime-')));
    assert.equal(first.code, 0, first.stdout.slice(-2000) + first.stderr);
    assert.equal(second.code, 0, second.stdout.slice(-2000) + second.stderr);
  });

  it("counts in the second run's money line only its own lines of the ledger both runs share", () => {
    const ledger = readFileSync(join(reports, 'ledger.jsonl'), 'utf8').trim().split('\n');
    const intents = (runId: string | undefined): number =>
      ledger.filter((line) => line.includes(`"runId":"${runId ?? ''}"`) && line.includes('"type":"intent"'))
        .length;
    const [firstRun, secondRun] = [certificationOf(first), certificationOf(second)];
    assert.ok(intents(firstRun.run.runId) > 0);
    const sent = secondRun.withdrawals?.sent ?? 0;
    assert.equal(sent, intents(secondRun.run.runId));
    const allIntents = ledger.filter((line) => line.includes('"type":"intent"')).length;
    assert.equal(allIntents, intents(firstRun.run.runId) + sent, 'the ledger holds both runs, and only them');
  });

  it('keeps every run in a directory of its own with {runId}, which history reads as it is, counting a run given twice once', () => {
    assert.deepEqual(kept.map((run) => run.code), [0, 0], kept.map((run) => run.stderr).join('\n'));
    assert.equal(readdirSync(join(work, 'runs')).length, 2);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /: 2 runs, oldest first:/);
    assert.match(history.stdout, /^1 run given twice, counted once\.$/m);
  }); // prettier-ignore
});
