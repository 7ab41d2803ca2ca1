/**
 * pix-certify history over real runs: three live runs against the sandbox under one name (reference,
 * a fault behind another base URL, the reference again), the first read as the version 2 report an
 * older suite wrote and given twice, and a file that is not a certification. Each base URL is its own
 * series, both URLs shown, the failing run marked, a legend, the run given twice counted once; the
 * chart is drawn, each run is linked to its report, and the page loads nothing. The history built from
 * reports made here: selftest/history.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import type { Certification } from '../../src/report/model.ts';
import { sandboxEnv } from '../support/live-env.ts';
import {
  cleanEnvironment,
  runCommand,
  runSuite,
  TYPESCRIPT_LOADER,
  type SuiteRun,
} from '../support/run-suite.ts';
import { temporaryDir } from '../support/temporary.ts';

const ROOT = join(import.meta.dirname, '..', '..');

const baseUrlOf = (run: SuiteRun | undefined): string =>
  (run?.report as unknown as Certification | undefined)?.run.baseUrl ?? '';

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
      // One after the other, so that the runs' start times order them as they ran; one worker each, as
      // only their reports are read here (a second worker's start costs about 2 s of processor time).
      for (const scenario of ['reference', 'webhook-get', 'reference'] as const)
        runs.push(
          await runSuite(sandboxEnv(sandbox, scenario, { PIX_ENV_NAME: 'Nightly' }), ['--workers=1']),
        );
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
          TYPESCRIPT_LOADER,
          join(ROOT, 'bin', 'history.ts'),
          ...runs.map((run) => run.reportDir).reverse(),
          runs[0]?.reportDir ?? '',
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
    assert.match(lines[0] ?? '', /^pix-certify history: left out: .*package\.json is not a certification/);
  });

  it('prints a series per environment, each named with its base URL, the failing run marked, and a legend', () => {
    const [reference, fault] = [baseUrlOf(runs[0]), baseUrlOf(runs[1])];
    assert.notEqual(reference, fault);
    const out = history.stdout;
    assert.ok(out.includes(`Nightly (${reference}): 2 runs, oldest first:`), out);
    assert.ok(out.includes(`Nightly (${fault}): 1 run, oldest first:`), out);
    assert.match(out, /^✗ #1 .* FAILED /m);
    assert.match(out, /^WEBHOOK-POST\s+✓✓\s+PASSED in every run$/m);
    assert.match(out, /^WEBHOOK-POST\s+✗\s+FAILED in every run$/m);
    assert.match(out, /^1 run given twice, counted once\.$/m);
    assert.match(
      out,
      /^Legend: ✓ PASSED {2}! WARNING {2}✗ FAILED {2}– SKIPPED {2}\(blank: the run had no such check\)/m,
    );
  });

  it('writes history.html: both environments and their verdicts first, then each series with its chart, nothing loaded', () => {
    assert.match(html, /<svg class="chart"[\s\S]*<rect class="bar-PASSED"[\s\S]*<polyline class="duration"/);
    assert.ok(html.includes(`content="default-src 'none'; style-src 'unsafe-inline'"`));
    assert.doesNotMatch(html, /<script|<link|<img|src=|url\(/);
    assert.match(html, /3 runs \(1 run given twice, counted once\) of 2 environments/);
    const firstChart = html.indexOf('<svg');
    for (const run of [runs[0], runs[1]]) {
      const url = baseUrlOf(run);
      assert.ok(html.indexOf(`<code>${url}</code>`) < firstChart, `${url} is on the first screen`);
    }
    assert.ok(html.indexOf('Legend: ') < firstChart);
    assert.match(html, /<tr class="failing" title="this run FAILED"><td>✗ #1<\/td>.*<a href="[^"]+certification\.html">Nightly<\/a>/);
    assert.equal(html.match(/<section id="environment-/g)?.length, 2);
  }); // prettier-ignore
});
