/**
 * Temporary directories of a self-test file, each removed when the file's process exits (node --test
 * runs every test file in a process of its own): a full self-test run used to leave about 130 of them
 * in the system's temporary directory, the reports of every suite run among them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new directory in the system's temporary directory, its name starting with `prefix`. */
export function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}
