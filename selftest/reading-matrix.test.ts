/**
 * The matrix report of pix-certify client --readings (src/report/reading-matrix.ts), from certifications
 * built by buildClientCertification on hand-written journals: a row's verdict is its worst judged cell's
 * and the run's the worst cell's; a check only some readings can exercise is SKIPPED in the others alone,
 * any other unjudged cell leaves the run INCOMPLETE naming its reading; the exit code follows the usual
 * rules; suite errors and observations keep their reading; the report validates and verifies.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeSealedCertification } from '../src/report/integrity.ts';
import type { Certification, CheckResult } from '../src/report/model.ts';
import { certificationValidator } from '../src/report/read.ts';
import { verifyReportDir } from '../src/report/verify.ts';
import { temporaryDir } from './support/temporary.ts';
import {
  CLIENT_CHECKS,
  completeRun,
  early429,
  fieldCase,
  freshCode,
  matrixOf,
  reading,
  SOME_ID,
  withSome,
} from './support/reading-matrix.ts';

const rowOf = (report: Certification, id: string): CheckResult =>
  report.checks.find((c) => c.id === id) ?? assert.fail(`no row ${id}`);

const cellVerdicts = (report: Certification, id: string): Record<string, string> =>
  Object.fromEntries((rowOf(report, id).readings ?? []).map((c) => [c.reading, c.verdict]));

const columns = (report: Certification): Record<string, string> =>
  Object.fromEntries((report.readings ?? []).map((r) => [r.name, r.verdict]));

describe('a row per check, a cell per reading, the worst cell decides', () => {
  it('PASSED in every reading: one row per check with its cells in the columns’ order, exit 0', () => {
    const report = matrixOf([reading('simulator', completeRun()), reading('short-token', completeRun())]);
    assert.equal(report.verdict, 'PASSED');
    assert.equal(report.exitCode, 0);
    assert.deepEqual(
      report.checks.map((c) => c.id),
      CLIENT_CHECKS.map((c) => c.id),
    );
    assert.deepEqual(
      report.checks.map((c) => (c.readings ?? []).map((cell) => cell.reading).join(',')),
      CLIENT_CHECKS.map(() => 'simulator,short-token'),
    );
    assert.deepEqual(columns(report), { simulator: 'PASSED', 'short-token': 'PASSED' });
    assert.deepEqual(
      (report.readings ?? []).map((r) => r.runId),
      ['ns-test', 'ns-test'],
    );
    assert.equal(report.counts.PASSED, CLIENT_CHECKS.length);
    assert.equal(report.run.runId, undefined, 'each column names its own namespace');
  });

  it('FAILED in one reading: the row and the run are FAILED, the evidence names the reading, exit 1', () => {
    const report = matrixOf([
      reading('simulator', completeRun()),
      reading('refuses-401', completeRun({ extra: [fieldCase(9_000)] })),
    ]);
    const row = rowOf(report, 'CLIENT-BODY-FIELD-NAMES');
    assert.equal(row.verdict, 'FAILED');
    assert.deepEqual(cellVerdicts(report, 'CLIENT-BODY-FIELD-NAMES'), {
      simulator: 'PASSED',
      'refuses-401': 'FAILED',
    });
    assert.deepEqual(
      row.evidence?.map((e) => [e.reading, e.verdict]),
      [['refuses-401', 'FAILED']],
    );
    assert.equal(row.evidenceCount, 1);
    assert.equal(report.verdict, 'FAILED');
    assert.equal(report.exitCode, 1);
    assert.deepEqual(columns(report), { simulator: 'PASSED', 'refuses-401': 'FAILED' });
  });

  it('a WARNING outranks PASSED and exits 0, 1 under PIX_STRICT; a WARNING that can pay twice exits 1 anyway', () => {
    const warned = [
      reading('simulator', completeRun()),
      reading('slow', completeRun({ extra: early429(9_000) })),
    ];
    const report = matrixOf(warned);
    assert.equal(rowOf(report, 'CLIENT-AFTER-429').verdict, 'WARNING');
    assert.equal(report.verdict, 'WARNING');
    assert.equal(report.exitCode, 0);
    assert.equal(matrixOf(warned, CLIENT_CHECKS, { strict: true }).exitCode, 1);
    const twice = matrixOf([
      reading('simulator', completeRun()),
      reading('slow', completeRun({ extra: freshCode(9_000) })),
    ]);
    const row = rowOf(twice, 'CLIENT-UNKNOWN-OUTCOME');
    assert.equal(row.verdict, 'WARNING');
    assert.equal(row.money, 'a double payout');
    assert.equal(twice.exitCode, 1);
  });
});

describe('a check a reading cannot exercise is SKIPPED for that reading only', () => {
  const judgedInOne = [
    reading('simulator', completeRun({ without429: true })),
    reading('rate-limited', completeRun()),
  ];

  it('a check only some readings exercise, judged in one: the run is complete and the cell says why it was not judged', () => {
    const report = matrixOf(judgedInOne, withSome);
    assert.equal(report.verdict, 'PASSED');
    assert.equal(report.complete, true);
    assert.equal(report.exitCode, 0);
    const row = rowOf(report, SOME_ID);
    assert.equal(row.verdict, 'PASSED');
    const [skipped] = row.readings ?? [];
    assert.ok(skipped);
    assert.equal(skipped.verdict, 'SKIPPED');
    assert.match(skipped.evidence?.[0]?.reason ?? '', /amount 0\.29 \(rate-limited-429\) would exercise it/);
    assert.equal(skipped.notJudged?.cause, 'outcome');
    assert.deepEqual(columns(report), { simulator: 'PASSED', 'rate-limited': 'PASSED' });
  });

  it('the same skip of a check without the flag leaves the run INCOMPLETE, naming the reading', () => {
    const report = matrixOf(judgedInOne);
    assert.equal(report.verdict, 'INCOMPLETE');
    assert.equal(rowOf(report, SOME_ID).verdict, 'PASSED', 'the row is judged; the run is not complete');
    assert.deepEqual(
      report.incomplete.map((i) => [i.cause, i.checks, i.readings]),
      [['environment', [SOME_ID], ['simulator']]],
    );
    assert.match(
      report.incomplete[0]?.reason ?? '',
      /^In reading simulator: The client's run did not exercise/,
    );
    assert.deepEqual(columns(report), { simulator: 'INCOMPLETE', 'rate-limited': 'PASSED' });
    assert.equal(report.exitCode, 1, 'the client gate requires a complete run');
    assert.equal(matrixOf(judgedInOne, CLIENT_CHECKS, { requireComplete: false }).exitCode, 0);
  });

  it('a check only some readings exercise, skipped in every reading, leaves the run INCOMPLETE naming them all', () => {
    const none = [
      reading('simulator', completeRun({ without429: true })),
      reading('webhook-first', completeRun({ without429: true })),
    ];
    const report = matrixOf(none, withSome);
    assert.equal(report.verdict, 'INCOMPLETE');
    assert.equal(rowOf(report, SOME_ID).verdict, 'SKIPPED');
    assert.equal(rowOf(report, SOME_ID).notJudged?.cause, 'outcome');
    assert.deepEqual(
      rowOf(report, SOME_ID).evidence?.map((e) => e.reading),
      ['simulator', 'webhook-first'],
    );
    assert.deepEqual(
      report.incomplete.map((i) => [i.checks, i.readings]),
      [[[SOME_ID], ['simulator', 'webhook-first']]],
    );
    assert.match(report.incomplete[0]?.reason ?? '', /^In readings simulator and webhook-first: /);
    assert.deepEqual(columns(report), { simulator: 'INCOMPLETE', 'webhook-first': 'INCOMPLETE' });
  });
});

describe('what each reading says of itself keeps its name', () => {
  it('a suite error of one reading makes the run and that column ERROR (exit 2), named by its reading', () => {
    const report = matrixOf([
      reading('simulator', completeRun()),
      reading('gzip', completeRun(), [{ test: 'journal', message: 'the journal could not be read' }]),
    ]);
    assert.deepEqual(report.suiteErrors, [
      { test: 'journal', message: 'the journal could not be read', reading: 'gzip' },
    ]);
    assert.equal(report.verdict, 'ERROR');
    assert.equal(report.exitCode, 2);
    assert.deepEqual(columns(report), { simulator: 'PASSED', gzip: 'ERROR' });
  });

  it("a reading's certification without a row for a check is a suite error, never a PASSED cell", () => {
    const partial = reading('gzip', completeRun());
    const report = matrixOf([
      reading('simulator', completeRun()),
      {
        ...partial,
        certification: { ...partial.certification, checks: partial.certification.checks.slice(1) },
      },
    ]);
    const [first] = CLIENT_CHECKS;
    assert.ok(first);
    assert.deepEqual(cellVerdicts(report, first.id), { simulator: 'PASSED', gzip: 'SKIPPED' });
    assert.equal(report.verdict, 'ERROR');
    assert.match(report.suiteErrors[0]?.message ?? '', new RegExp(`reading gzip has no row for ${first.id}`));
  });

  it('observations carry their reading; coverage and counts follow the rows', () => {
    const report = matrixOf([
      reading('simulator', completeRun()),
      reading('slow', completeRun({ extra: early429(9_000) })),
    ]);
    assert.deepEqual(
      report.observations.map((o) => [o.topic, o.reading]),
      [
        ['client.command', 'simulator'],
        ['client.command', 'slow'],
      ],
    );
    assert.deepEqual(report.counts, { PASSED: CLIENT_CHECKS.length - 1, FAILED: 0, WARNING: 1, SKIPPED: 0 });
    const covered = report.coverage.clauses.flatMap((c) => c.checks).find((c) => c.id === 'CLIENT-AFTER-429');
    assert.equal(covered?.verdict, 'WARNING');
  });
});

describe('the matrix report as a file', () => {
  it('validates against the report schema (version 5); verify finds it consistent, and a cell edited against its row not', async () => {
    const report = matrixOf(
      [
        reading('simulator', completeRun({ without429: true })),
        reading('slow', completeRun({ extra: [fieldCase(9_000)] })),
      ],
      withSome,
    );
    const validate = certificationValidator();
    const written = JSON.parse(JSON.stringify(report)) as Certification;
    assert.equal(written.schemaVersion, 5);
    assert.ok(validate(written), JSON.stringify(validate.errors));
    const dir = temporaryDir('matrix-verify-');
    await writeSealedCertification(dir, report, undefined);
    const verified = verifyReportDir(dir);
    assert.deepEqual(verified.problems, []);
    assert.equal(verified.exitCode, 0);
    const json = join(dir, 'certification.json');
    const edited = JSON.parse(readFileSync(json, 'utf8')) as Certification;
    const checks = edited.checks.map((c) =>
      c.id === 'CLIENT-BODY-FIELD-NAMES'
        ? { ...c, readings: (c.readings ?? []).map((cell) => ({ reading: cell.reading, verdict: 'PASSED' })) }
        : c,
    );
    writeFileSync(json, JSON.stringify({ ...edited, checks }));
    assert.deepEqual(
      verifyReportDir(dir).problems.map((p) => p.line),
      [
        "certification.json: the verdict of CLIENT-BODY-FIELD-NAMES is not the worst of its readings' verdicts",
      ],
    );
  });

  it('the schema refuses a cell without its reading or a PASSED cell with evidence', () => {
    const report = JSON.parse(
      JSON.stringify(matrixOf([reading('simulator', completeRun())])),
    ) as Certification;
    const validate = certificationValidator();
    const [row, ...rest] = report.checks;
    assert.ok(row);
    const broken = (cell: object): unknown => ({
      ...report,
      checks: [{ ...row, readings: [cell] }, ...rest],
    });
    assert.equal(validate(broken({ verdict: 'PASSED' })), false);
    assert.equal(
      validate(broken({ reading: 'simulator', verdict: 'PASSED', evidence: [], evidenceCount: 0 })),
      false,
    );
    assert.equal(validate(broken({ reading: 'simulator', verdict: 'PASSED' })), true);
  });
});
