/**
 * `pix-certify lifetime`: measures how long the sandbox accepts a token (short lifetimes, seconds),
 * in a report directory of its own, tells revocation apart, reports what it has on Ctrl-C; and the
 * ages and the sentence it reports, in process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { agesUpTo, describeLifetime, type LifetimeResult } from '../src/run/lifetime.ts';
import { ROOT } from '../src/base/paths.ts';
import { cleanEnvironment, runCommand, TYPESCRIPT_LOADER } from './support/run-suite.ts';
import { sandboxEnv } from './support/live-env.ts';
import { temporaryDir } from './support/temporary.ts';

const LIFETIME = ['--import', TYPESCRIPT_LOADER, join(ROOT, 'bin', 'lifetime.ts')];

/** The one lifetime-<run id> directory a probe wrote under `reportDir`, and its lifetime.json. */
function reportOf(reportDir: string): LifetimeResult & { runId: string } {
  const dirs = readdirSync(reportDir).filter((name) => name.startsWith('lifetime-'));
  assert.equal(dirs.length, 1, `one lifetime directory in ${reportDir}: ${dirs.join(', ')}`);
  assert.ok(!existsSync(join(reportDir, 'certification.json')), 'no certification is written');
  return JSON.parse(
    readFileSync(join(reportDir, dirs[0] ?? '', 'lifetime.json'), 'utf8'),
  ) as LifetimeResult & {
    runId: string;
  };
}

describe('the token lifetime probe, alone', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(() => sandbox.close());

  const probe = (scenario: string, max: string) => {
    const reportDir = temporaryDir('pix-lifetime-');
    return runCommand(process.execPath, [...LIFETIME, '--max', max], {
      cwd: ROOT,
      env: cleanEnvironment({ ...sandboxEnv(sandbox, scenario), PIX_REPORT_DIR: reportDir }),
      timeoutMs: 60_000,
      reportDir,
    });
  };

  it('finds a token that dies at 4 s although it states 7200 s, between the ages it tried', async () => {
    const run = await probe('token-dies-early', '4s');
    assert.equal(run.code, 0, run.stderr);
    const report = reportOf(run.reportDir);
    assert.deepEqual(report.ages, [
      { ageSeconds: 1, accepted: true },
      { ageSeconds: 2, accepted: true },
      { ageSeconds: 4, accepted: false },
    ]);
    assert.equal(report.statedSeconds, 7200);
    assert.equal(report.revokes, false);
    assert.match(
      run.stdout,
      /refused at 4 s: it stops being accepted between 2 s and 4 s \(expires_in 7200\), before the 7200 s renewal interval/,
    );
  });

  it('sees no refusal from a provider that honours its tokens, and goes one token at a time against one that revokes', async () => {
    const [honours, revokes] = await Promise.all([
      probe('reference', '3s'),
      probe('single-active-token', '2s'),
    ]);
    assert.equal(honours.code, 0, honours.stderr);
    assert.deepEqual(reportOf(honours.reportDir).ages, [
      { ageSeconds: 2, accepted: true },
      { ageSeconds: 3, accepted: true },
    ]);
    assert.match(honours.stdout, /accepted at 3 s, the maximum asked \(3 s\); no refusal seen/);
    assert.equal(revokes.code, 0, revokes.stderr);
    const revoking = reportOf(revokes.reportDir);
    assert.equal(revoking.revokes, true);
    assert.deepEqual(revoking.ages, [
      { ageSeconds: 1, accepted: true },
      { ageSeconds: 2, accepted: true },
    ]);
    assert.match(revokes.stdout, /Issuing a token ends the earlier ones: one token at a time/);
  });

  it('reports what it measured when interrupted, with exit 1', async () => {
    const reportDir = temporaryDir('pix-lifetime-');
    const child = spawn(process.execPath, [...LIFETIME, '--max', '40s'], {
      cwd: ROOT,
      env: cleanEnvironment({ ...sandboxEnv(sandbox, 'reference'), PIX_REPORT_DIR: reportDir }),
    });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        // The first age (about 1 s) measured: interrupt while the next waits.
        if (/accepted at 1 s/.test(stdout) && !interrupted) interrupted = child.kill('SIGINT');
      });
      child.on('close', resolve);
      setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
    });
    assert.equal(code, 1, `${stdout}\n${stderr}`);
    const report = reportOf(reportDir);
    assert.equal(report.interrupted, true);
    assert.deepEqual(report.ages, [{ ageSeconds: 1, accepted: true }]);
    assert.match(stdout, /Interrupted: reporting what was measured/);
  });

  it('refuses to run without payouts allowed, naming the variable', async () => {
    const sentBefore = sandbox.withdrawalsReceived('reference');
    const reportDir = temporaryDir('pix-lifetime-');
    const run = await runCommand(process.execPath, [...LIFETIME, '--max', '2s'], {
      cwd: ROOT,
      env: cleanEnvironment({
        ...sandboxEnv(sandbox, 'reference'),
        PIX_ALLOW_PAYOUTS: '0',
        PIX_REPORT_DIR: reportDir,
      }),
      timeoutMs: 30_000,
      reportDir,
    });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^pix-certify lifetime: PIX_ALLOW_PAYOUTS/m);
    assert.equal(sandbox.withdrawalsReceived('reference'), sentBefore);
  });
});

describe('the ages and the sentence of the lifetime probe', () => {
  it('halves down from the maximum, at most eight ages, none under a second', () => {
    assert.deepEqual(agesUpTo(7200), [56, 113, 225, 450, 900, 1800, 3600, 7200]);
    assert.deepEqual(agesUpTo(4), [1, 2, 4]);
    assert.deepEqual(agesUpTo(1), [1]);
  });

  it('warns only for a refusal before the renewal interval', () => {
    const base = { maxSeconds: 14_400, statedSeconds: undefined, revokes: false, interrupted: false };
    const late = describeLifetime({
      ...base,
      ages: [
        { ageSeconds: 3600, accepted: true },
        { ageSeconds: 7200, accepted: false },
      ],
    });
    assert.equal(late.warning, false);
    assert.match(late.line, /between 3600 s and 7200 s \(no stated lifetime\)$/);
    const early = describeLifetime({ ...base, ages: [{ ageSeconds: 60, accepted: false }] });
    assert.equal(early.warning, true);
    assert.match(
      early.line,
      /never accepted at any age tried and refused at 60 s: it stops being accepted before 60 s/,
    );
    assert.match(describeLifetime({ ...base, ages: [], unmeasurable: 'why' }).line, /^not measured: why$/);
  });
});
