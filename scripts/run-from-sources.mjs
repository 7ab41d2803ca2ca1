// @ts-check
/**
 * `npm run certify` in a clone: brings .build/ up to date with the sources (scripts/sources-build.mjs),
 * then runs the entry from there in this very process: `node scripts/run-from-sources.mjs bin/certify.ts
 * [arguments]`.
 *
 * Why not a TypeScript loader (tsx): on Node 20, which has no in-thread module hooks, a loader runs on
 * a thread of its own and every import waits for it, in this process and, for Playwright's, in the
 * runner and in each worker; compiled, a mock certification ran in 0.77 of the time (3.06 s against
 * 3.95 s, 7 interleaved runs, docs/bench.md). Stack traces name .build/ files;
 * NODE_OPTIONS=--enable-source-maps maps them to the sources.
 *
 * A command line that names a TypeScript file (a test file, with or without its line; a reporter or
 * a configuration of one's own) runs the sources as they are, under tsx: compiled, the suite's tests
 * are .js files with other line numbers, and Playwright would load a .ts module without its loader.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILD_DIR, build, outputOf, ROOT } from './sources-build.mjs';

/**
 * `tests/token/issue.spec.ts:40`, `--reporter=list,./mine.ts`, `-c my.config.mts`: the test
 * src/base/lean-node.ts makes to keep Playwright's loader for an installed run (this file cannot import it).
 */
const NAMES_TYPESCRIPT = /\.[cm]?tsx?(?:$|[:,])/;

const [entry, ...args] = process.argv.slice(2);
if (entry === undefined || !entry.endsWith('.ts')) {
  process.stderr.write('usage: node scripts/run-from-sources.mjs <entry.ts> [arguments]\n');
  process.exit(2);
}
let modulePath = join(ROOT, entry);
if (args.some((arg) => NAMES_TYPESCRIPT.test(arg))) {
  const { register } = await import('tsx/esm/api');
  register();
} else {
  build();
  modulePath = join(BUILD_DIR, outputOf(entry));
}
// The entry sees the command line it would see if node had started it: its own path, then its arguments.
process.argv = [process.argv[0] ?? process.execPath, modulePath, ...args];
await import(pathToFileURL(modulePath).href);
