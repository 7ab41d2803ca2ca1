/**
 * compare and history read matrix reports (pix-certify client --readings): a cell is compared with the
 * same check's cell of the same reading, a reading only one side ran is told as added or removed, and a
 * plain report stands for a matrix's `simulator` column; in history a row is a check in one reading.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderHistoryConsole } from '../reporters/certification/history.ts';
import { changeLines, changesHeadline } from '../reporters/certification/text.ts';
import { compareCertifications, unchanged } from '../src/report/compare.ts';
import { buildHistory } from '../src/report/history.ts';
import type { Certification } from '../src/report/model.ts';
import { certified, completeRun, early429, fieldCase, matrixOf, reading } from './support/reading-matrix.ts';

const later = (report: Certification, minutes: number): Certification => ({
  ...report,
  run: {
    ...report.run,
    startTime: new Date(Date.parse(report.run.startTime) + minutes * 60_000).toISOString(),
  },
});

const clean = matrixOf([reading('simulator', completeRun()), reading('refuses-401', completeRun())]);
const broken = matrixOf([
  reading('simulator', completeRun()),
  reading('refuses-401', completeRun({ extra: [fieldCase(9_000)] })),
]);

describe('compare with matrix reports', () => {
  it('compares each cell with the same reading’s: a regression in one reading names it', () => {
    const comparison = compareCertifications(clean, broken);
    assert.deepEqual(comparison.checks, [
      {
        id: 'CLIENT-BODY-FIELD-NAMES',
        reading: 'refuses-401',
        kind: 'regressed',
        before: 'PASSED',
        after: 'FAILED',
        regression: true,
      },
    ]);
    assert.equal(comparison.regressions, 1);
    assert.deepEqual(comparison.readings, []);
    assert.deepEqual(
      changeLines(comparison).map((l) => [l.tag, l.text]),
      [['REGRESSION', 'CLIENT-BODY-FIELD-NAMES in reading refuses-401: PASSED → FAILED']],
    );
    assert.deepEqual(compareCertifications(broken, clean).checks[0]?.kind, 'improved');
  });

  it('tells a reading only one side ran as added or removed, without comparing its cells', () => {
    const wider = matrixOf([
      reading('simulator', completeRun()),
      reading('rate-limited', completeRun({ extra: early429(9_000) })),
    ]);
    const comparison = compareCertifications(clean, wider);
    assert.deepEqual(comparison.checks, []);
    assert.deepEqual(comparison.readings, [
      { reading: 'refuses-401', kind: 'removed', verdict: 'PASSED' },
      { reading: 'rate-limited', kind: 'added', verdict: 'WARNING' },
    ]);
    assert.equal(comparison.regressions, 0);
    assert.equal(unchanged(comparison), false);
    assert.match(changesHeadline(comparison), /0 regressions, 2 other changes/);
    assert.deepEqual(
      changeLines(comparison).map((l) => l.text),
      [
        'reading refuses-401: run in the baseline only (PASSED), so its cells are not compared',
        'reading rate-limited: run in this report only (WARNING), so its cells are not compared',
      ],
    );
  });

  it('compares a plain report with the matrix’s simulator column, either way round', () => {
    const plain = certified(completeRun({ extra: [fieldCase(9_000)] }));
    const forward = compareCertifications(plain, broken);
    assert.deepEqual(
      forward.checks.map((c) => [c.id, c.reading, c.kind]),
      [['CLIENT-BODY-FIELD-NAMES', 'simulator', 'improved']],
    );
    assert.deepEqual(forward.readings, [{ reading: 'refuses-401', kind: 'added', verdict: 'FAILED' }]);
    const backward = compareCertifications(broken, plain);
    assert.deepEqual(
      backward.checks.map((c) => [c.id, c.reading, c.kind, c.regression]),
      [['CLIENT-BODY-FIELD-NAMES', 'simulator', 'regressed', true]],
    );
    assert.deepEqual(backward.readings, [{ reading: 'refuses-401', kind: 'removed', verdict: 'FAILED' }]);
  });

  it('a matrix without a simulator column shares no reading with a plain report: each side is told whole', () => {
    const plain = certified(completeRun());
    const other = matrixOf([reading('short-token', completeRun())]);
    const comparison = compareCertifications(plain, other);
    assert.deepEqual(comparison.checks, []);
    assert.deepEqual(
      comparison.readings?.map((r) => [r.reading, r.kind]),
      [
        ['simulator', 'removed'],
        ['short-token', 'added'],
      ],
    );
  });

  it('compares observations within one reading, naming it', () => {
    const before = matrixOf([reading('simulator', completeRun())]);
    const after = {
      ...before,
      observations: before.observations.map((o) => ({ ...o, value: 'changed' })),
    };
    const comparison = compareCertifications(before, after);
    assert.deepEqual(
      comparison.observations.map((o) => [o.topic, o.reading, o.kind]),
      [['client.command', 'simulator', 'value-changed']],
    );
    assert.match(changeLines(comparison)[0]?.text ?? '', /^client\.command in reading simulator: /);
  });

  it('a plain report against a plain report is compared as before, with no reading anywhere', () => {
    const comparison = compareCertifications(
      certified(completeRun()),
      certified(completeRun({ extra: [fieldCase(9_000)] })),
    );
    assert.equal(comparison.readings, undefined);
    assert.deepEqual(
      comparison.checks.map((c) => [c.id, c.reading]),
      [['CLIENT-BODY-FIELD-NAMES', undefined]],
    );
  });
});

describe('history with matrix reports', () => {
  it('makes a row per check and reading, a plain run standing for the simulator reading', () => {
    const plain = certified(completeRun());
    const history = buildHistory([
      { path: 'plain/certification.json', report: plain },
      { path: 'clean/certification.json', report: later(clean, 1) },
      { path: 'broken/certification.json', report: later(broken, 2) },
    ]);
    const [series] = history.series;
    assert.ok(series);
    assert.equal(series.runs.length, 3);
    const row = (id: string, readingName: string) =>
      series.rows.find((r) => r.id === id && r.reading === readingName) ??
      assert.fail(`${id} ${readingName}`);
    assert.deepEqual(row('CLIENT-BODY-FIELD-NAMES', 'refuses-401').verdicts, [undefined, 'PASSED', 'FAILED']);
    assert.deepEqual(row('CLIENT-BODY-FIELD-NAMES', 'simulator').verdicts, ['PASSED', 'PASSED', 'PASSED']);
    const [first] = series.rows;
    assert.ok(first);
    assert.deepEqual(
      [first.id, first.reading],
      ['CLIENT-BODY-FIELD-NAMES', 'refuses-401'],
      'the row that changed comes first',
    );
    assert.equal(series.rows.length, plain.checks.length * 2);
    const text = renderHistoryConsole(
      { ...history, refused: [] },
      { width: 120, colour: false },
      'history.html',
    );
    assert.match(text, /^CLIENT-BODY-FIELD-NAMES · refuses-401 +\s+ ✓✗ /m);
  });

  it('a history of plain runs has no reading in its rows', () => {
    const history = buildHistory([{ path: 'a', report: certified(completeRun()) }]);
    assert.ok(history.series[0]?.rows.every((r) => r.reading === undefined));
  });
});
