/**
 * The installed package for the bench: a tarball given with --tarball <path> or BENCH_TARBALL, else
 * the one `npm pack` makes of this repository, installed with its runtime dependencies only into an
 * empty temporary directory, as an integrator would.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const BIN = 'pix-certify';

export type Installed = { readonly dir: string; readonly tarball: string } | { readonly skipped: string };

function givenTarball(args: readonly string[]): string | undefined {
  const at = args.indexOf('--tarball');
  const value = at === -1 ? process.env.BENCH_TARBALL : args[at + 1];
  return value === undefined || value.trim() === '' ? undefined : resolve(value);
}

async function pack(root: string): Promise<string> {
  const destination = mkdtempSync(join(tmpdir(), 'pix-bench-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: root,
    maxBuffer: 32 * 1024 * 1024,
  });
  // npm prints its lifecycle scripts' output before the JSON on some versions: read from the array.
  const [entry] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[];
  if (entry === undefined) throw new Error('npm pack named no tarball');
  return join(destination, entry.filename);
}

async function declaredBin(tarball: string): Promise<boolean> {
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
  const { bin } = JSON.parse(stdout) as { bin?: unknown };
  return typeof bin === 'object' && bin !== null && BIN in bin;
}

export async function installedPackage(root: string, args: readonly string[]): Promise<Installed> {
  const given = givenTarball(args);
  if (given !== undefined && !existsSync(given)) return { skipped: `the tarball ${given} does not exist` };
  process.stderr.write(given === undefined ? 'bench: npm pack…\n' : `bench: using ${given}\n`);
  const tarball = given ?? (await pack(root));
  if (!(await declaredBin(tarball))) return { skipped: `no ${BIN} bin in this package yet (${tarball})` };
  const dir = mkdtempSync(join(tmpdir(), 'pix-bench-install-'));
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  process.stderr.write(`bench: installing it with --omit=dev into ${dir}…\n`);
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev', tarball], {
    cwd: dir,
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    maxBuffer: 32 * 1024 * 1024,
  });
  return { dir, tarball };
}
