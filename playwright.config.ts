import { defineConfig } from '@playwright/test';
import { configOfThisProcess } from './src/config/config.ts';
import { privateOutputDir } from './src/run/output-dir.ts';
import { MODULE_EXTENSION } from './src/base/paths.ts';
import { runMetadata } from './src/run/run-metadata.ts';
import { markPhase } from './src/base/phase.ts';

// Loaded by the runner and again by each worker as it starts.
markPhase('Playwright configuration loaded');

const settings = configOfThisProcess();

export default defineConfig({
  // The same configuration runs the sources and, compiled, the installed package's .js modules.
  testDir: 'tests',
  testMatch: `**/*.spec${MODULE_EXTENSION}`,
  // Playwright hands tests to its workers in file order: events/ (the webhook's wait) sorts early so that its
  // wait overlaps the other tests, and the long token tests each follow the files they would otherwise hold back.
  globalSetup: `./tests/_support/global-setup${MODULE_EXTENSION}`,
  fullyParallel: true,
  // Against the mock one worker is fastest (a worker's start-up costs more than its share of the work);
  // a live environment answers more slowly, so two requests may be in flight.
  workers: settings.mode === 'mock' ? 1 : 2,
  // A withdrawal is never sent twice by the suite: no retry, ever.
  retries: 0,
  forbidOnly: process.env.CI !== undefined,
  timeout: settings.webhook.timeoutMs + 2 * settings.requestTimeoutMs + 10_000,
  // Never inside the report directory: Playwright empties its output directory when a run starts.
  outputDir: privateOutputDir(),
  // The certification reporter prints progress, the summary, and writes every report, JUnit included.
  reporter: [[`./reporters/certification${MODULE_EXTENSION}`]],
  // No `use` options: the tests' base type has no browser or tracing fixtures (tests/_support/fixtures.ts),
  // so nothing records the requests and their credentials, even under --trace on.
  metadata: { pix: runMetadata(settings) },
  projects: [{ name: settings.mode }],
});
