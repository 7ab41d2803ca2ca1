/**
 * pix-certify history over real runs: three live runs against the sandbox (reference, a fault, the
 * reference again), the first read as the version 2 report an older suite wrote, and a file that is
 * not a certification. The checks the fault flipped come first, the chart is drawn, each run is
 * linked to its report, and the page loads nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { buildHistory } from '../src/report/history.ts';
import type { Certification } from '../src/report/model.ts';
import { sandboxEnv } from './support/live-env.ts';
import { cleanEnvironment, runCommand, runSuite, type SuiteRun } from './support/run-suite.ts';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');

describe('pix-certify history', () => {
  let sandbox: RunningSandbox;
  let work: string;
  const runs: SuiteRun[] = [];
  let history: SuiteRun;
  let html: string;
  let notACertification: string;

  before(
    async () => {
      sandbox = await startSandbox();
      work = temporaryDir('pix-history-');
      // One after the other, so that the runs' start times order them as they ran.
      for (const [name, scenario] of [
        ['Nightly A', 'reference'],
        ['Nightly B', 'webhook-get'],
        ['Nightly C', 'reference'],
      ] as const)
        runs.push(await runSuite(sandboxEnv(sandbox, scenario, { PIX_ENV_NAME: name })));
      // The first as an older suite wrote it: report schema version 2, without integrity.
      const first = join(runs[0]?.reportDir ?? '', 'certification.json');
      const older = JSON.parse(readFileSync(first, 'utf8')) as Record<string, unknown>;
      Reflect.deleteProperty(older, 'integrity');
      writeFileSync(first, JSON.stringify({ ...older, schemaVersion: 2 }));
      notACertification = join(work, 'package.json');
      writeFileSync(notACertification, '{"name": "not a certification"}');
      history = await runCommand(
        process.execPath,
        [
          '--import',
          'tsx',
          join(ROOT, 'bin', 'history.ts'),
          ...runs.map((run) => run.reportDir).reverse(),
          notACertification,
          '--out',
          join(work, 'history.html'),
        ],
        { cwd: ROOT, env: cleanEnvironment({}), timeoutMs: 60_000, reportDir: work },
      );
      html = readFileSync(join(work, 'history.html'), 'utf8');
    },
    { timeout: 300_000 },
  );
  after(async () => {
    await sandbox.close();
    for (const dir of [work, ...runs.map((run) => run.reportDir)])
      rmSync(dir, { recursive: true, force: true });
  });

  it('ran the three certifications: the fault FAILED, the reference did not', () => {
    assert.deepEqual(
      runs.map((run) => run.report?.verdict === 'FAILED'),
      [false, true, false],
    );
  });

  it('leaves out what is not a certification with one line, and writes the history of the rest (exit 0)', () => {
    assert.equal(history.code, 0, history.stderr);
    const lines = history.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, history.stderr);
    assert.match(lines[0] ?? '', /^pix-history: left out: .*package\.json is not a certification/);
  });

  it('prints the checks the fault flipped first, each run a column in time order', () => {
    const flipped = runs[1]?.idsWith('FAILED') ?? [];
    assert.ok(flipped.includes('WEBHOOK-POST'), flipped.join(', '));
    const table = history.stdout.split('\n');
    const header = table.findIndex((line) => line.startsWith('check '));
    assert.ok(header > 0, history.stdout);
    const firstRows = table
      .slice(header + 1, header + 1 + flipped.length)
      .map((line) => line.split(/\s+/)[0]);
    assert.deepEqual(new Set(firstRows), new Set(flipped));
    const webhookPost = table.find((line) => line.startsWith('WEBHOOK-POST '));
    assert.match(webhookPost ?? '', /^WEBHOOK-POST\s+✓✗✓\s+PASSED since #3$/);
    assert.match(history.stdout, /#1 .*Nightly A[\s\S]*#2 .*Nightly B[\s\S]*#3 .*Nightly C/);
  });

  it('writes history.html: chart, runs linked to their reports by environment, nothing loaded', () => {
    assert.match(html, /<svg class="chart"[\s\S]*<rect class="bar-PASSED"[\s\S]*<polyline class="duration"/);
    assert.ok(html.includes(`content="default-src 'none'; style-src 'unsafe-inline'"`));
    assert.doesNotMatch(html, /<script|<link|<img|src=|url\(/);
    for (const [index, name] of ['Nightly A', 'Nightly B', 'Nightly C'].entries())
      assert.match(
        html,
        new RegExp(`<td>#${index + 1}</td>.*<a href="[^"]+certification\\.html">${name}</a>`),
      );
    const changed = html.indexOf('changed verdict</td>');
    const kept = html.indexOf('kept their verdict</td>');
    assert.ok(changed > 0 && kept > changed, 'the flipped checks come before the others');
    assert.ok(html.indexOf('>WEBHOOK-POST<') < kept);
  });
});

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
    assert.deepEqual(
      built.runs.map((run) => run.path),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(
      built.rows.map((row) => [row.id, row.changes, row.since, row.verdicts]),
      [
        ['B', 1, 1, ['PASSED', 'WARNING', 'WARNING']],
        ['C', 1, 1, ['FAILED', 'PASSED', 'PASSED']],
        ['A', 0, 0, ['PASSED', 'PASSED', 'PASSED']],
        ['D', 0, 1, [undefined, 'PASSED', undefined]],
      ],
    );
  });
});
