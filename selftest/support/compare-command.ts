/** npm run compare as a user starts it from a clone: its exit code and output. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { TYPESCRIPT_LOADER } from './run-suite.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface Compare {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function npmRunCompare(...files: string[]): Promise<Compare> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TYPESCRIPT_LOADER, join(ROOT, 'bin', 'compare.ts'), ...files],
      { cwd: ROOT },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
          stdout,
          stderr,
        });
      },
    );
  });
}
