/** A module script run in a Node process of its own, from the repository's root, its sources as a clone runs them. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** What `script` (an ES module, TypeScript allowed) writes; undefined if it failed, or did not end within `timeoutMs`. */
export function inFreshProcess(
  script: string,
  options: { readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number } = {},
): string | undefined {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  return run.status === 0 ? run.stdout : undefined;
}
