/**
 * The installed package for the bench: a tarball given with --tarball <path> or BENCH_TARBALL, else
 * the one `npm pack` makes of this repository, installed as the package self-test installs it.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { installTarball, packTarball } from '../selftest/support/installed-package.ts';

export type Installed = { readonly dir: string; readonly tarball: string } | { readonly skipped: string };

function givenTarball(args: readonly string[]): string | undefined {
  const at = args.indexOf('--tarball');
  const value = at === -1 ? process.env.BENCH_TARBALL : args[at + 1];
  return value === undefined || value.trim() === '' ? undefined : resolve(value);
}

export async function installedPackage(args: readonly string[]): Promise<Installed> {
  const given = givenTarball(args);
  if (given !== undefined && !existsSync(given)) return { skipped: `the tarball ${given} does not exist` };
  process.stderr.write(given === undefined ? 'bench: npm pack…\n' : `bench: using ${given}\n`);
  const tarball = given ?? (await packTarball(mkdtempSync(join(tmpdir(), 'pix-bench-pack-')))).tarball;
  const dir = mkdtempSync(join(tmpdir(), 'pix-bench-install-'));
  process.stderr.write(`bench: installing it with --omit=dev into ${dir}…\n`);
  await installTarball(tarball, dir);
  return { dir, tarball };
}
