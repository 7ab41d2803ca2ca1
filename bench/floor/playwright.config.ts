/**
 * Playwright's own floor for the bench: its runner with two empty tests, two workers, as a user's
 * first API suite would start (the project's node_modules, the Node the bench runs the row under).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  fullyParallel: true,
  workers: 2,
  reporter: 'dot',
  // Never inside the repository: Playwright empties its output directory when a run starts.
  outputDir: join(tmpdir(), 'pix-bench-floor-results'),
});
