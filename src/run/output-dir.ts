/**
 * Playwright's output directory, which it empties recursively when a run starts. It must never be
 * inside the report directory (which may be any directory the user names, holding files the suite
 * did not write): each run gets a private temporary directory, removed when the runner exits.
 * Workers evaluate playwright.config.ts again; they inherit the directory through the run state,
 * set once by the runner. Playwright's --last-failed memory lives there too, so it lasts one run
 * unless --last-failed-file (or PLAYWRIGHT_LAST_RUN_OUTPUT_FILE) keeps it elsewhere. A run killed
 * outright (SIGKILL), or a worker still finishing when SIGTERM stopped the runner, may leave a
 * nearly empty pix-output-* in the system's temporary directory: never in the report directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runState, shareRunState } from '../base/run-state.ts';

export function privateOutputDir(): string {
  const inherited = runState('outputDir');
  if (inherited !== undefined) return inherited;
  const dir = mkdtempSync(join(tmpdir(), 'pix-output-'));
  shareRunState({ outputDir: dir });
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  process.on('exit', remove);
  // Playwright's runner leaves SIGTERM (a cancelled CI job) to its default, which skips 'exit':
  // remove the directory, then die of the signal as before.
  process.once('SIGTERM', () => {
    remove();
    process.kill(process.pid, 'SIGTERM');
  });
  return dir;
}
