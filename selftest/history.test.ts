/**
 * pix-certify history, built from reports made here: within one series the checks that flipped come
 * first, each base URL and name its own series, a run given twice counted once, a directory of run
 * directories read whole. Over real runs against the sandbox: selftest/slow/history.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildHistory, readHistory } from '../src/report/history.ts';
import { certification } from './support/certification.ts';
import type { Certification } from '../src/report/model.ts';
import { temporaryDir } from './support/temporary.ts';

describe('the history of certifications already read', () => {
  const report = (
    startTime: string,
    verdicts: Record<string, 'PASSED' | 'FAILED' | 'WARNING'>,
  ): Certification =>
    ({
      schemaVersion: 2,
      verdict: 'PASSED',
      run: { baseUrl: 'https://x.example', startTime, durationMs: 1000 },
      counts: { PASSED: 0, FAILED: 0, WARNING: 0, SKIPPED: 0 },
      checks: Object.entries(verdicts).map(([id, verdict]) => ({
        id,
        title: id,
        clause: '§6',
        level: 'must',
        verdict,
      })),
    }) as unknown as Certification;

  it('orders runs by time, flipped checks first (most changes first), and says since when a verdict holds', () => {
    const built = buildHistory([
      { path: 'c', report: report('2026-11-03T00:00:00Z', { A: 'PASSED', B: 'WARNING', C: 'PASSED' }) },
      { path: 'a', report: report('2026-11-01T00:00:00Z', { A: 'PASSED', B: 'PASSED', C: 'FAILED' }) },
      {
        path: 'b',
        report: report('2026-11-02T00:00:00Z', { A: 'PASSED', B: 'WARNING', C: 'PASSED', D: 'PASSED' }),
      },
    ]);
    const [series, ...others] = built.series;
    assert.deepEqual(others, []);
    assert.ok(series !== undefined);
    assert.deepEqual(
      series.runs.map((run) => run.path),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(
      series.rows.map((row) => [row.id, row.changes, row.since, row.verdicts]),
      [
        ['B', 1, 1, ['PASSED', 'WARNING', 'WARNING']],
        ['C', 1, 1, ['FAILED', 'PASSED', 'PASSED']],
        ['A', 0, 0, ['PASSED', 'PASSED', 'PASSED']],
        ['D', 0, 1, [undefined, 'PASSED', undefined]],
      ],
    );
  });

  it('makes a series per base URL and name, and counts the same run given twice once', () => {
    const at = (startTime: string, baseUrl: string): Certification => ({
      ...report(startTime, { A: 'PASSED' }),
      run: { ...report(startTime, {}).run, baseUrl, environmentName: 'UAT' },
    });
    const one = at('2026-11-01T00:00:00Z', 'https://one.example');
    const built = buildHistory([
      { path: 'a', report: one },
      { path: 'a-again', report: one },
      { path: 'b', report: at('2026-11-02T00:00:00Z', 'https://two.example') },
    ]);
    assert.deepEqual(
      built.series.map((s) => [s.name, s.baseUrl, s.runs.map((run) => run.path)]),
      [
        ['UAT', 'https://one.example', ['a']],
        ['UAT', 'https://two.example', ['b']],
      ],
    );
    assert.equal(built.duplicates, 1);
  });

  it('reads a directory of run directories (PIX_REPORT_DIR=reports/{runId}) as every run in it', () => {
    const parent = temporaryDir('pix-history-runs-');
    try {
      for (const [name, startTime] of [['r1', '2026-11-01T00:00:00.000Z'], ['r2', '2026-11-02T00:00:00.000Z']] as const) {
        mkdirSync(join(parent, name));
        writeFileSync(join(parent, name, 'certification.json'), JSON.stringify(certification({ run: { startTime, runId: name } })));
      }
      mkdirSync(join(parent, 'lifetime-abc'));
      const read = readHistory([parent]);
      assert.deepEqual(read.refused, []);
      assert.deepEqual(read.series[0]?.runs.map((run) => run.path), ['r1', 'r2'].map((name) => join(parent, name, 'certification.json')));
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }); // prettier-ignore
});
