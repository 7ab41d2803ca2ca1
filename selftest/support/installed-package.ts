/**
 * The tool as an integrator gets it: `npm pack` of this repository (its prepack builds dist/), the
 * tarball installed with --omit=dev into an empty directory, and Node releases shipped as npm
 * packages to run it under. The dependencies come from npm's cache when it has them, from the
 * registry otherwise. The package self-test and the bench both install it this way.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { temporaryDir } from './temporary.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const NPM_TIME_LIMIT_MS = 240_000;
/** npm's own flags for every install here: no audit or funding requests, and the cache first. */
const QUIET = ['--prefer-offline', '--no-audit', '--no-fund'];

export const BIN = 'pix-certify';

export interface PackedTarball {
  /** The tarball's path. */
  readonly tarball: string;
  /** The package's name, its directory in node_modules/. */
  readonly name: string;
  /** The paths inside the tarball, as `npm pack` listed them. */
  readonly files: readonly string[];
}

/** `npm pack` of this repository into `destination`. */
export async function packTarball(destination: string): Promise<PackedTarball> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: ROOT,
    timeout: NPM_TIME_LIMIT_MS,
    maxBuffer: 32 * 1024 * 1024,
  });
  // npm prints its lifecycle scripts' output before the JSON on some versions: read from the array.
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
    filename: string;
    name: string;
    files: { path: string }[];
  }[];
  if (packed === undefined) throw new Error('npm pack named no tarball');
  return {
    tarball: join(destination, packed.filename),
    name: packed.name,
    files: packed.files.map((f) => f.path),
  };
}

/**
 * Installs the tarball with its runtime dependencies only into `dir`, a new project of an integrator's,
 * with npm running on the `node` of `nodeBinDir` (this process's by default): npm picks versions by the
 * Node it runs on, so each supported line installs its own tree.
 */
export async function installTarball(tarball: string, dir: string, nodeBinDir?: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "name": "integrator", "version": "1.0.0", "private": true }\n');
  const PATH =
    nodeBinDir === undefined ? process.env.PATH : `${nodeBinDir}${delimiter}${process.env.PATH ?? ''}`;
  await run('npm', ['install', '--omit=dev', ...QUIET, tarball], {
    cwd: dir,
    env: { ...process.env, PATH, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    timeout: NPM_TIME_LIMIT_MS,
    maxBuffer: 32 * 1024 * 1024,
  });
}

export interface InstalledPackage {
  /** The temporary directory that holds the tarball and the installation: remove it when done. */
  readonly workDir: string;
  /** The packed tarball, as a release would ship it. */
  readonly tarball: string;
  /** The directory the tarball was installed into (its package.json and node_modules/). */
  readonly dir: string;
  /** node_modules/.bin/pix-certify there. */
  readonly bin: string;
  /** The package's own directory in node_modules/. */
  readonly packageDir: string;
  /** The paths inside the tarball, as `npm pack` listed them. */
  readonly packedFiles: readonly string[];
}

/** Packs this repository and installs the tarball into a new project, with npm on `nodeBinDir`'s node. */
export async function packAndInstall(nodeBinDir?: string): Promise<InstalledPackage> {
  const work = temporaryDir('pix-package-');
  const packed = await packTarball(work);
  return installPacked(packed, work, 'project', nodeBinDir);
}

/** Installs a packed tarball into `<workDir>/<project>`, with npm on `nodeBinDir`'s node. */
export async function installPacked(
  packed: PackedTarball,
  workDir: string,
  project: string,
  nodeBinDir?: string,
): Promise<InstalledPackage> {
  const dir = join(workDir, project);
  await installTarball(packed.tarball, dir, nodeBinDir);
  return {
    workDir,
    tarball: packed.tarball,
    dir,
    bin: join(dir, 'node_modules', '.bin', BIN),
    packageDir: join(dir, 'node_modules', packed.name),
    packedFiles: packed.files,
  };
}

const NODE_VERSIONS = join(ROOT, 'selftest', 'node-versions');

/** Node releases the tests run the package under, by their alias in selftest/node-versions/package.json. */
const RELEASES = ['node18', 'node22', 'node24'] as const;
export type NodeRelease = (typeof RELEASES)[number];

/** Where a release's `node` lives once selftest/node-versions is installed. */
export const nodeReleaseBinDir = (release: NodeRelease): string =>
  join(NODE_VERSIONS, 'node_modules', release, 'bin');

const releasesInstalled = (): boolean =>
  RELEASES.every((release) => existsSync(join(nodeReleaseBinDir(release), 'node')));

/**
 * The directory holding each release's `node`, installed from selftest/node-versions' lock file when
 * missing. They live apart from the project's node_modules, whose .bin/node they would replace for
 * every npm script.
 */
export async function nodeReleases(): Promise<Record<NodeRelease, string>> {
  if (!releasesInstalled()) await installNodeReleases();
  return {
    node18: nodeReleaseBinDir('node18'),
    node22: nodeReleaseBinDir('node22'),
    node24: nodeReleaseBinDir('node24'),
  };
}

/**
 * npm ci in a directory of its own, whose node_modules is then renamed into place whole: test files
 * that ask at once (node --test runs two) each find the releases complete or install a copy of their
 * own, never a tree another file's npm ci is emptying under them.
 */
async function installNodeReleases(): Promise<void> {
  const staging = mkdtempSync(join(NODE_VERSIONS, '.staging-'));
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      copyFileSync(join(NODE_VERSIONS, file), join(staging, file));
    await run('npm', ['ci', ...QUIET], { cwd: staging, timeout: NPM_TIME_LIMIT_MS });
    if (releasesInstalled()) return;
    // Only an interrupted install leaves an incomplete tree: whole ones arrive by rename.
    rmSync(join(NODE_VERSIONS, 'node_modules'), { recursive: true, force: true });
    try {
      renameSync(join(staging, 'node_modules'), join(NODE_VERSIONS, 'node_modules'));
    } catch (error) {
      if (!releasesInstalled()) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
