/**
 * Playwright's workers compile nothing of src/ (src/run/playwright-options.ts): in a clone's mock
 * certification under Node 24, the worker's modules of src/ are Node's own loading, the configuration's
 * (loaded before Playwright hooks in) and the tests' (external to Playwright's transform) alike. Its
 * workers used to compile the 36 modules of src/ they import with Babel on every run.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { nodeReleases } from '../support/installed-package.ts';
import { cleanEnvironment, PLAYWRIGHT_CLI, runCommand, TYPESCRIPT_LOADER } from '../support/run-suite.ts';
import { temporaryDir } from '../support/temporary.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PROBE = pathToFileURL(join(import.meta.dirname, '..', 'support', 'babel-probe.mjs')).href;
/** The configuration's module, one it imports, and one only the tests import. */
const PROBED = [
  'src/run/playwright-options.ts#playwrightOptions',
  'src/config/config.ts#configOfThisProcess',
  'src/transport/http.ts#readBody',
];

/** Runs the suite under Node 24 with the probe; returns what it found in each worker, module by module. */
async function probedRun(entry: readonly string[]): Promise<boolean[][]> {
  const node24 = (await nodeReleases()).node24;
  const probeDir = temporaryDir('pix-babel-probe-');
  const reportDir = temporaryDir('pix-run-');
  const env = cleanEnvironment({
    PATH: `${node24}${delimiter}${process.env.PATH ?? ''}`,
    NODE_OPTIONS: `--import ${PROBE}`,
    BABEL_PROBE_DIR: probeDir,
    PROBED_MODULES: PROBED.map((module) => join(ROOT, module)).join(','),
    PIX_REPORT_DIR: reportDir,
  });
  const run = await runCommand(join(node24, 'node'), entry, {
    cwd: ROOT,
    env,
    timeoutMs: 120_000,
    reportDir,
  });
  assert.ok(run.report !== undefined, run.stdout + run.stderr);
  return readdirSync(probeDir).map(
    (file) => JSON.parse(readFileSync(join(probeDir, file), 'utf8')) as boolean[],
  );
}

describe("Playwright's worker in a clone under Node 24", () => {
  it('runs src/ as Node loads it under npm run certify', async () => {
    const certify = [
      '--max-semi-space-size=2',
      '--import',
      TYPESCRIPT_LOADER,
      join(ROOT, 'bin', 'certify.ts'),
    ];
    assert.deepEqual(await probedRun(certify), [[true, true, true]]);
  });

  it("runs the configuration's modules as Babel compiled them under Playwright's own command line (the probe sees it)", async () => {
    assert.deepEqual(await probedRun([PLAYWRIGHT_CLI, 'test']), [[false, false, true]]);
  });
});
