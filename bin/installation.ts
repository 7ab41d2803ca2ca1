/**
 * Whether this Node and this installation can run the suite, asked before anything that could fail
 * on either is loaded: a problem is one line and exit code 2 (a configuration error), never a stack
 * trace and exit 1, which means FAILED. Node built-ins and paths.ts only, so that it loads anywhere.
 */
import { readFileSync } from 'node:fs';
import { PACKAGE_JSON_PATH } from '../src/base/paths.ts';

/** Each tested line of Node and its oldest release the suite supports; package.json's engines says the same. */
export const SUPPORTED_NODE: readonly (readonly [major: number, minor: number])[] = [
  [20, 19],
  [22, 12],
  [24, 0],
];

/** The engines range of SUPPORTED_NODE, as package.json must state it. */
export function enginesRange(): string {
  return SUPPORTED_NODE.map(([major, minor]) => `^${major}.${minor}.0`).join(' || ');
}

/**
 * Why this Node version cannot run the suite, or undefined. Below the newest tested line, only the
 * tested lines from their minimum are supported (odd releases between them are end-of-life); a newer
 * major is let through untested, as npm's engines warning already told at install time.
 */
export function nodeProblem(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const newest = SUPPORTED_NODE.at(-1)?.[0] ?? 0;
  if (major > newest) return undefined;
  const line = SUPPORTED_NODE.find(([supported]) => supported === major);
  if (line !== undefined && minor >= line[1]) return undefined;
  const supported = SUPPORTED_NODE.map(([m, n]) => (n === 0 ? `${m}` : `${m}.${n} or later ${m}.x`));
  return `Node ${version} cannot run the suite: use Node ${supported.join(', ')} (package.json engines: ${enginesRange()}).`;
}

const REINSTALL = 'install the suite again (npm ci in your project, or npm install <its tarball>)';

/** The first dependency of package.json that cannot be resolved from here, as a problem line, or undefined. */
export function missingDependency(resolve: (specifier: string) => string): string | undefined {
  const { dependencies = {} } = JSON.parse(readFileSync(PACKAGE_JSON_PATH, 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const name of Object.keys(dependencies)) {
    try {
      resolve(name);
    } catch {
      return `the dependency ${name} is missing from this installation: ${REINSTALL}.`;
    }
  }
  return undefined;
}

/** A module that could not be found while loading a command, as a problem line, or undefined for any other error. */
export function moduleNotFound(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const firstLine = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  return `a file of this installation is missing (${firstLine}): ${REINSTALL}.`;
}
