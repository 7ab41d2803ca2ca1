/**
 * Two shards of the whole suite against the embedded mock, run at once as if on two machines and merged,
 * give the certification of one run; under --trace on they record no trace (the fixtures extend
 * _baseTest). The other runs against the mock: selftest/mock-runs.test.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PLAYWRIGHT_CLI, runSuite, type Certification } from '../support/run-suite.ts';
import { temporaryDir } from '../support/temporary.ts';

const ROOT = join(import.meta.dirname, '..', '..');

const verdicts = (report: Certification | undefined): Record<string, string> =>
  Object.fromEntries((report?.checks ?? []).map((c) => [c.id, c.verdict]));

describe('two shards of the suite against the embedded mock', { concurrency: 1 }, () => {
  /** Playwright's output directory of each shard run, which ran under --trace on. */
  const shardOutputDirs: string[] = [];

  it('gives the same certification from two merged shards as from one run', async () => {
    // Each shard runs as if on its own machine, both at once; the blob reporter empties its own directory
    // first. Under --trace on, so that their output directories hold the whole suite's traces, if any.
    const blobs = temporaryDir('pix-blobs-');
    const shards = [1, 2].map((shard) => ({
      shard,
      own: temporaryDir(`pix-shard-${shard}-`),
      outputDir: temporaryDir(`pix-output-${shard}-`),
    }));
    const [one, ...runs] = await Promise.all([
      runSuite({}),
      ...shards.map(({ shard, own, outputDir }) =>
        runSuite({ PLAYWRIGHT_BLOB_OUTPUT_DIR: own, PIX_OUTPUT_DIR: outputDir }, [
          `--shard=${shard}/2`,
          '--reporter=blob',
          '--trace=on',
        ]),
      ),
    ]);
    assert.equal(one.code, 0, one.stderr);
    const single = one.report;
    for (const [index, { own, outputDir }] of shards.entries()) {
      assert.equal(runs[index]?.code, 0, runs[index]?.stderr);
      shardOutputDirs.push(outputDir);
      for (const file of readdirSync(own).filter((f) => f.endsWith('.zip')))
        copyFileSync(join(own, file), join(blobs, file));
    }
    const merged = temporaryDir('pix-merged-');
    await promisify(execFile)(
      process.execPath,
      [PLAYWRIGHT_CLI, 'merge-reports', '--reporter', './reporters/certification.ts', blobs],
      {
        cwd: ROOT,
        env: { ...process.env, PIX_REPORT_DIR: merged },
      },
    );
    const report = JSON.parse(readFileSync(join(merged, 'certification.json'), 'utf8')) as Certification;
    assert.ok(single !== undefined, 'the single run produced a certification');
    assert.deepEqual(verdicts(report), verdicts(single));
    assert.equal(report.verdict, single.verdict);
  });

  it('records no trace even under --trace on: the fixtures extend _baseTest, without tracing fixtures', () => {
    // Playwright's `test` would write a trace.zip per test into its output directory; `_baseTest` has no
    // tracing fixture, so nothing can record a request and its credentials (tests/_support/fixtures.ts).
    assert.equal(shardOutputDirs.length, 2, 'both shard runs above passed under --trace on');
    const files = shardOutputDirs.flatMap((dir) => readdirSync(dir, { recursive: true }).map(String));
    assert.deepEqual(
      files.filter((file) => file.endsWith('.zip')),
      [],
    );
  });
});
