/**
 * What playwright.config.ts hands Playwright, from the one module of src/ it imports. Playwright's workers
 * compile what they load with Babel, and only its runner caches that, while pix-certify's runner loads
 * src/ through Node: where Node loads src/ itself (it strips types, or the package is compiled), src/ is
 * external to Playwright's transform, and pix-certify's workers load this module before Playwright's hooks
 * (bin/certify.ts), so no worker compiles src/ again on every run (docs/performance.md).
 */
import { sep } from 'node:path';
import type { PlaywrightTestConfig } from '@playwright/test';
import { configOfThisProcess } from '../config/config.ts';
import { privateOutputDir } from './output-dir.ts';
import { CODE_ROOT, MODULE_EXTENSION } from '../base/paths.ts';
import { runMetadata } from './run-metadata.ts';
import { markPhase } from '../base/phase.ts';

/** `process.features.typescript` ('strip' or 'transform' from Node 22.18 on), absent from Node 20's types. */
const features = process.features as { typescript?: string | false };
/** True in the compiled package, and in a clone where Node strips types; false on Node 20 in a clone. */
export const NODE_LOADS_SOURCES = MODULE_EXTENSION === '.js' || Boolean(features.typescript);
/** The suite's own src/ as a glob, its directory's glob characters escaped: a user's reporter under a src/ of theirs stays Playwright's. */
const OWN_SOURCES = `${CODE_ROOT.split(sep)
  .join('/')
  .replace(/[*?[\]{}()!+@\\]/g, '\\$&')}/src/**`;

export function playwrightOptions(): PlaywrightTestConfig {
  // Loaded by the runner and again by each worker as it starts.
  markPhase('Playwright configuration loaded');
  const settings = configOfThisProcess();
  return {
    // The same configuration runs the sources and, compiled, the installed package's .js modules.
    testDir: 'tests',
    testMatch: `**/*.spec${MODULE_EXTENSION}`,
    ...(NODE_LOADS_SOURCES ? { build: { external: [OWN_SOURCES] } } : {}),
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
  };
}
