import { defineConfig } from '@playwright/test';
import { configOfThisProcess } from './src/config/config.ts';
import { privateOutputDir } from './src/run/output-dir.ts';
import { MODULE_EXTENSION } from './src/base/paths.ts';
import { runMetadata } from './src/run/run-metadata.ts';

const settings = configOfThisProcess();

export default defineConfig({
  // The same configuration runs the sources and, compiled, the installed package's .js modules.
  testDir: 'tests',
  testMatch: `**/*.spec${MODULE_EXTENSION}`,
  // Playwright hands the tests to its workers in file order (names sorted, folder by folder), and three
  // orders matter at a distance. The webhook's tests (tests/events/, §6) wait for a delivery and a
  // grace period after it: started early, that wait overlaps the other tests instead of ending the
  // run alone. TOKEN-SURVIVES-NEWER-TOKEN (token-life.spec.ts) holds back every other token request
  // while it runs: after issue.spec.ts, whose tests are all token requests, it holds back none.
  // TOKEN-REUSE (first in create-withdraw.spec.ts) sends a token request and three withdrawals one
  // after another, in one of the run's slots: before credentials.spec.ts, whose families fill the
  // others, it runs beside them; dispatched last, it ended the run alone (docs/bench.md, ninth pass).
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
