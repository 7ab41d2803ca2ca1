/**
 * What a run does to the report directory, tried as a user would: it refuses a directory holding
 * files it did not write before anything is sent, and a run that executes no test writes nothing.
 * The reports' atomic writes and links are tested on the writer itself (selftest/reporters.test.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runSuite } from './support/run-suite.ts';
import { temporaryDir } from './support/temporary.ts';

function directoryWith(files: Readonly<Record<string, string>>): string {
  const dir = temporaryDir('pix-report-files-');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const EARLIER = '{"an earlier certification":true}\n';

describe('the report directory of a real run', () => {
  it('is refused by npm run certify when it holds files the suite did not write: exit 2, one line, nothing touched', async () => {
    const dir = directoryWith({ 'thesis.tex': 'mine', 'certification.json': EARLIER });
    const run = await runSuite({ PIX_REPORT_DIR: dir });
    assert.equal(run.code, 2, run.stdout);
    assert.match(
      run.stderr,
      /^pix-certify: PIX_REPORT_DIR: .* holds files this suite did not write \(thesis\.tex\)\. Set PIX_REPORT_DIR to/,
    );
    assert.equal(run.stderr.trim().split('\n').length, 1);
    assert.deepEqual(readdirSync(dir).sort(), ['certification.json', 'thesis.tex']);
    assert.equal(readFileSync(join(dir, 'certification.json'), 'utf8'), EARLIER);
  });

  it('is refused by npx playwright test too, in global setup, before any test', async () => {
    const dir = directoryWith({ 'thesis.tex': 'mine' });
    const run = await runSuite({ PIX_REPORT_DIR: dir }, [], 120_000, 'playwright');
    assert.notEqual(run.code, 0);
    assert.match(
      run.stderr,
      /^certification: none written, because no test ran: the run stopped before its first test: Error: PIX_REPORT_DIR: .* holds files this suite did not write \(thesis\.tex\)/m,
    );
    assert.deepEqual(readdirSync(dir), ['thesis.tex']);
  });

  it('keeps its earlier certification when a run executes no test, and certify says none was written (exit 2)', async () => {
    const dir = directoryWith({ 'certification.json': EARLIER });
    const run = await runSuite({ PIX_REPORT_DIR: dir }, ['--grep', 'matches no test of the suite']);
    assert.equal(run.code, 2, run.stdout);
    assert.match(
      run.stderr,
      /^certification: none written, because no test ran: no test matches this run's selection \(--grep matches no test of the suite\)\./m,
    );
    assert.match(
      run.stderr,
      /^pix-certify: no certification was written \(Playwright exit \d+\): the lines above say why/m,
    );
    assert.equal(readFileSync(join(dir, 'certification.json'), 'utf8'), EARLIER);
    assert.deepEqual(readdirSync(dir), ['certification.json']);
  });
});
