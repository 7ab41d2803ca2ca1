/**
 * An earlier commit of this repository as a user would have run it (BENCH_BASELINE=<commit>): a
 * `git clone` of it with `npm ci` done, kept in the system's temporary directory under the commit's
 * full hash, so that later bench runs reuse it (npm ci needs only the registry, or npm's cache). A
 * commit whose package-lock.json is this checkout's, byte for byte, gets a link to this checkout's
 * node_modules instead: npm ci would install the same tree, and takes minutes on a busy machine.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
/** Written last: a checkout without it was interrupted and is made again. */
const READY = '.pix-bench-ready';

export interface Baseline {
  readonly commit: string;
  readonly dir: string;
}

export async function baselineCheckout(commit: string): Promise<Baseline> {
  const { stdout } = await run('git', ['rev-parse', '--verify', `${commit}^{commit}`], { cwd: ROOT });
  const hash = stdout.trim();
  const dir = join(tmpdir(), `pix-bench-baseline-${hash}`);
  if (existsSync(join(dir, READY))) return { commit: hash.slice(0, 7), dir };
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`bench: cloning ${hash.slice(0, 7)} into ${dir} and installing its dependencies…\n`);
  await run('git', ['clone', '--quiet', '--no-checkout', ROOT, dir]);
  await run('git', ['checkout', '--quiet', '--detach', hash], { cwd: dir });
  const lock = (root: string): string => readFileSync(join(root, 'package-lock.json'), 'utf8');
  if (lock(dir) === lock(ROOT) && existsSync(join(ROOT, 'node_modules'))) {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, READY), `${hash}\n`);
    return { commit: hash.slice(0, 7), dir };
  }
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    timeout: 600_000,
    maxBuffer: 32 * 1024 * 1024,
  });
  writeFileSync(join(dir, READY), `${hash}\n`);
  return { commit: hash.slice(0, 7), dir };
}
