/**
 * Regression against a baseline, end to end: the real suite run against the sandbox (certify --baseline:
 * the same environment again, a lenient reading, a webhook without its code) and npm run compare on the
 * reports. The comparison itself is tested on hand-built certifications in selftest/compare.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Certification, ObservationChange } from '../../src/report/model.ts';
import { certificationValidator } from '../../src/report/read.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { certification } from '../support/certification.ts';
import { npmRunCompare } from '../support/compare-command.ts';
import { sandboxEnv } from '../support/live-env.ts';
import { runSuite, type SuiteRun } from '../support/run-suite.ts';
import { temporaryDir } from '../support/temporary.ts';

const validate = certificationValidator();

const regressionsFirst = (changes: readonly { readonly regression: boolean }[]): boolean =>
  !changes.some((change, i) => change.regression && changes.slice(0, i).some((c) => !c.regression));

const changesOf = (run: SuiteRun): NonNullable<Certification['changes']> => {
  const changes = (run.report as Certification | undefined)?.changes;
  assert.ok(
    changes !== undefined,
    `no changes in the certification: exit ${run.code}\n${run.stderr.slice(-2000)}`,
  );
  return changes;
};

/** A scenario no run of this file certifies: any request to it comes from a run that should have stopped. */
const UNSENT = 'webhook-none';

describe('certify --baseline and npm run compare against the sandbox', () => {
  let sandbox: RunningSandbox;
  let work: string;
  const requests: string[] = [];
  let badBaseline: SuiteRun;
  let oldBaseline: SuiteRun;
  let first: SuiteRun;
  let again: SuiteRun;
  let lenient: SuiteRun;
  let anonymous: SuiteRun;
  let baselinePath: string;
  let oldSchemaPath: string;

  const envFor = (scenario: string, extra: Record<string, string> = {}): Record<string, string> =>
    sandboxEnv(sandbox, scenario, extra);

  before(async () => {
    sandbox = await startSandbox({ log: (line) => requests.push(line) });
    work = temporaryDir('pix-baseline-');
    oldSchemaPath = join(work, 'old-schema.json');
    await writeFile(oldSchemaPath, JSON.stringify({ ...certification(), schemaVersion: 0 }));
    // The runs with an unusable baseline have a scenario to themselves, so that their requests would show.
    [badBaseline, oldBaseline, first] = await Promise.all([
      runSuite(envFor(UNSENT), ['--workers=1', '--baseline', join(work, 'missing.json')]),
      runSuite(envFor(UNSENT, { PIX_BASELINE: oldSchemaPath }), ['--workers=1']),
      runSuite(envFor('reference'), ['--workers=1']),
    ]);
    baselinePath = join(first.reportDir, 'certification.json');
    [again, lenient, anonymous] = await Promise.all([
      runSuite(envFor('reference', { PIX_BASELINE: baselinePath }), ['--workers=1']),
      runSuite(envFor('lenient', { PIX_TOKEN_FIELD: 'token', PIX_FAIL_ON_DRIFT: '1' }), [
        '--workers=1',
        '--baseline',
        baselinePath,
      ]),
      // No webhook names the code: INCOMPLETE, which this run does not require, so its exit speaks of drift.
      runSuite(envFor('webhook-anonymous', { PIX_REQUIRE_COMPLETE: '0' }), [
        '--workers=1',
        `--baseline=${baselinePath}`,
      ]),
    ]);
  });

  after(async () => {
    await sandbox.close();
    await Promise.all(
      [work, ...[badBaseline, oldBaseline, first, again, lenient, anonymous].map((r) => r.reportDir)].map(
        (d) => rm(d, { recursive: true, force: true }),
      ),
    );
  });

  it('stops with exit code 2 and one line when the baseline is missing or from another report schema', () => {
    assert.equal(badBaseline.code, 2, badBaseline.stderr);
    assert.match(
      badBaseline.stderr.trim(),
      /^pix-certify: baseline: .*missing\.json cannot be read \(ENOENT\): [^\n]*$/,
    );
    assert.equal(badBaseline.report, undefined);
    assert.deepEqual(
      requests.filter((line) => line.includes(`/s/${UNSENT}/`)),
      [],
      'nothing was sent',
    );
    assert.equal(oldBaseline.code, 2, oldBaseline.stderr);
    assert.match(
      oldBaseline.stderr.trim(),
      /^pix-certify: baseline: .*old-schema\.json has report schema version 0[^\n]*$/,
    );
  });

  it('says "no change" when the same environment is certified again', async () => {
    assert.equal(first.code, 0, first.stderr.slice(-2000));
    assert.equal(again.code, 0, again.stderr.slice(-2000));
    const changes = changesOf(again);
    assert.deepEqual(
      [changes.regressions, changes.checks, changes.observations, changes.run],
      [0, [], [], []],
    );
    // The console wraps long lines at spaces.
    assert.match(
      again.stdout,
      /^No change since the baseline of [\s\S]*?in\s+the\s+checks\s+or\s+the\s+observations\.$/m,
    );
    const html = await readFile(join(again.reportDir, 'certification.html'), 'utf8');
    assert.match(html, /<p>No change since the baseline of /);
  });

  it('reports what a lenient reading changed in certification.json, certification.html and the console, and fails under PIX_FAIL_ON_DRIFT=1', async () => {
    const report = lenient.report as Certification | undefined;
    assert.ok(validate(report), JSON.stringify(validate.errors, null, 2));
    assert.equal(
      report?.verdict,
      'WARNING',
      'the lenient reading conforms: the exit code comes from the drift',
    );
    assert.equal(lenient.code, 1, lenient.stderr.slice(-2000));
    const changes = changesOf(lenient);
    assert.equal(changes.failOnDrift, true);
    assert.deepEqual(
      changes.checks.find((c) => c.id === 'TOKEN-REFUSE-MISSING-CLIENT-ID'),
      {
        id: 'TOKEN-REFUSE-MISSING-CLIENT-ID',
        kind: 'regressed',
        before: 'PASSED',
        after: 'WARNING',
        regression: true,
      },
    );
    const observed = (
      topic: string,
      kind: ObservationChange['kind'],
      field?: string,
    ): ObservationChange | undefined =>
      changes.observations.find((c) => c.topic === topic && c.kind === kind && c.field === field);
    assert.equal(observed('token.response.shape', 'field-removed', 'access_token')?.regression, true);
    assert.equal(observed('token.response.shape', 'field-added', 'token')?.after, 'string');
    assert.deepEqual(
      [
        observed('refusal.status.PAYMENT-REFUSE-WRONG-CLIENT-SECRET', 'value-changed')?.before,
        observed('refusal.status.PAYMENT-REFUSE-WRONG-CLIENT-SECRET', 'value-changed')?.after,
      ],
      ['403', '401'],
    );
    assert.match(observed('check_code.default', 'value-changed')?.after ?? '', /^false/);
    assert.deepEqual(
      changes.run.map((c) => c.field),
      ['baseUrl', 'options.tokenField'],
    );
    assert.equal(changes.suiteChanged, false, 'same suite, so the changes come from the environment');
    assert.ok(regressionsFirst(changes.checks) && regressionsFirst(changes.observations));

    assert.match(
      lenient.stdout,
      /^Changes since the baseline of [\s\S]*?:\s+\d+\s+regressions,\s+\d+\s+other\s+changes\.$/m,
    );
    assert.match(lenient.stdout, /^ {2}REGRESSION {2}TOKEN-REFUSE-MISSING-CLIENT-ID: PASSED → WARNING$/m);
    assert.match(lenient.stdout, /PIX_FAIL_ON_DRIFT=1: a regression since the baseline fails the run/);
    assert.ok(
      lenient.stdout.indexOf('Changes since the baseline') < lenient.stdout.indexOf('Verdict: WARNING'),
    );
    const html = await readFile(join(lenient.reportDir, 'certification.html'), 'utf8');
    assert.match(html, /token\.response\.shape: field access_token \(string\) disappeared/);
    assert.match(html, /refusal\.status\.PAYMENT-REFUSE-WRONG-CLIENT-SECRET: 403 → 401/);
    const summary = await readFile(join(lenient.reportDir, 'summary.md'), 'utf8');
    assert.match(summary, /^- \*\*REGRESSION\*\*: TOKEN-REFUSE-MISSING-CLIENT-ID: PASSED → WARNING$/m);
  });

  it('reports a regression without failing the run when PIX_FAIL_ON_DRIFT is not set', () => {
    assert.equal(anonymous.code, 0, anonymous.stderr.slice(-2000));
    const changes = changesOf(anonymous);
    assert.deepEqual(
      changes.checks.filter((c) => c.regression).map((c) => c.id),
      ['WEBHOOK-REFERS-TO-WITHDRAWAL'],
    );
    assert.ok(
      changes.observations.some(
        (c) => c.topic === 'webhook.payload.shape' && c.kind === 'field-removed' && c.field === 'code',
      ),
    );
  });

  it('prints the same comparison with npm run compare: exit 1 on a regression, 0 without, 2 for a file it cannot read', async () => {
    const lenientPath = join(lenient.reportDir, 'certification.json');
    const [regressed, same, unreadable] = await Promise.all([
      npmRunCompare(baselinePath, lenientPath),
      npmRunCompare(baselinePath, join(again.reportDir, 'certification.json')),
      npmRunCompare(oldSchemaPath, lenientPath),
    ]);
    assert.equal(regressed.code, 1, regressed.stderr);
    for (const line of lenient.stdout.split('\n').filter((l) => l.startsWith('  REGRESSION  ')))
      assert.ok(regressed.stdout.includes(line), `${line} in npm run compare`);
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /^No change since the baseline/m);
    assert.equal(unreadable.code, 2);
    assert.match(unreadable.stderr, /^pix-certify compare: .*old-schema\.json has report schema version 0/);
  });
});
