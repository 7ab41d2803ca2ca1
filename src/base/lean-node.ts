import module, { createRequire } from 'node:module';
import { MODULE_EXTENSION } from './paths.ts';

/**
 * V8 flags for the suite's own child processes: Prism, and Playwright's runner, whose workers are
 * forked with the runner's flags. Each lives a few seconds and allocates mostly while loading code,
 * so V8's default young generation (semi-spaces of up to 16 MB) is mostly held memory: at 2 MB a
 * mock run's whole process tree keeps about 80 MB less resident, for the same processor time
 * (measured side by side; 1 MB saved no more and collected more often). V8's helper threads (one per
 * core but one, by default) each allocate, and so each hold memory of their own, for heaps this small
 * to collect: one is enough (a live run's tree 2 to 10 MB lighter, the same wall time; docs/bench.md).
 */
const SEMI_SPACE_MB = 2;
export const LEAN_NODE_FLAGS: readonly string[] = [
  `--max-semi-space-size=${SEMI_SPACE_MB}`,
  '--v8-pool-size=1',
];

/**
 * The environment of the suite's own child processes, for glibc's allocator: by default it gives
 * every thread that allocates an arena of its own, up to eight per core, and a node process runs a
 * dozen threads; with two, a live run's tree held 2 to 8 MB less, for the same wall time (docs/bench.md).
 * A value the user set is theirs; an allocator other than glibc's reads no such variable.
 */
export function leanAllocatorEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return env.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: '2' } : {};
}

/**
 * The same young generation for a worker thread of the suite's (Prism's), whatever flags its process
 * started with: the installed pix-certify runs under plain `node`, whose threads would get V8's default
 * (32 MB of new space where these flags give 4; Prism's thread held about 28 MB more in an installed
 * mock run). V8 counts a young generation as three semi-spaces: two, and as much for large objects.
 */
export const LEAN_THREAD_LIMITS = { maxYoungGenerationSizeMb: 3 * SEMI_SPACE_MB } as const;

/** Node's compile cache API, from Node 22.8 on (the NODE_COMPILE_CACHE variable from 22.1); Node 20 has neither. */
interface CompileCacheApi {
  enableCompileCache?: () => { directory?: string };
}

/**
 * Turns on Node's cache of compiled code for this process, and through NODE_COMPILE_CACHE for the
 * Playwright workers it forks and Prism's thread, where the running Node has one (22 and later):
 * each of them compiles megabytes of Playwright's or Prism's code before the first request, and on
 * a mock run that is about 0.25 s of 2.8 s (measured on Node 22 and 24). The cache holds compiled
 * source, never a value the run reads, so no secret reaches it; it lives where Node puts it (the
 * system's temporary directory unless NODE_COMPILE_CACHE says otherwise), and
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off, as for any Node program.
 */
export function cacheCompiledCode(node = module as CompileCacheApi): void {
  const directory = node.enableCompileCache?.().directory;
  if (directory !== undefined) process.env.NODE_COMPILE_CACHE = directory;
}

/** An argument naming a TypeScript file: `--reporter=list,./mine.ts`, `tests/a.spec.ts:40`, `x.config.mts`. */
const NAMES_TYPESCRIPT = /\.[cm]?tsx?(?:$|[:,])/;

/**
 * Spares Playwright's TypeScript loader where it has nothing to do: compiled, the configuration and
 * the tests (the installed package's dist/, a clone's .build/) are JavaScript already. Without Node's
 * in-thread module hooks (Node 20; 22.15 and later have them) that loader runs on a thread of its own
 * and every import of the runner and of each worker waits for it: 0.6 s of an installed mock run on
 * Node 20 (3.08 s against 2.48 s, 7 interleaved runs, as docs/bench.md quotes), nothing measurable on
 * Node 22. PW_DISABLE_TS_ESM is Playwright's own switch for it, an internal one: should a later
 * Playwright drop it, the run is the same, only slower. From the sources, with a user's own --config
 * (which may be TypeScript), a command line naming a TypeScript file (a reporter of one's own:
 * `--reporter=./mine.ts`), or when the user set the variable, nothing changes.
 */
export function playwrightLoaderEnvironment(
  playwrightArgs: readonly string[],
  extension: string = MODULE_EXTENSION,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const ownConfig = playwrightArgs.some((a) => a === '-c' || a === '--config' || a.startsWith('--config='));
  const namesTypeScript = playwrightArgs.some((a) => NAMES_TYPESCRIPT.test(a));
  if (extension !== '.js' || ownConfig || namesTypeScript || env.PW_DISABLE_TS_ESM !== undefined) return {};
  return { PW_DISABLE_TS_ESM: '1' };
}

/** Where Playwright's own modules live: bundles without a source map (none carries the comment). */
const PLAYWRIGHT_LIB = /[\\/]node_modules[\\/](?:playwright|playwright-core)[\\/]lib[\\/]/;

/** What source-map-support reads for such a module instead: no sourceMappingURL comment, so no map. */
const WITHOUT_SOURCE_MAP = '// a Playwright module: no source map';

/** The source-map-support Playwright's runtime maps stacks with, as far as the suite uses it. */
export interface SourceMapSupport {
  install?: (options: {
    handleUncaughtExceptions: boolean;
    retrieveFile: (path: string) => string | null;
  }) => void;
  retrieveSourceMap?: (source: string) => unknown;
}

/** The copy of source-map-support Playwright's runtime requires (its utilsBundle's), if it has one. */
export function playwrightSourceMapSupport(): SourceMapSupport | undefined {
  try {
    const fromPlaywright = createRequire(createRequire(import.meta.url).resolve('playwright'));
    return (fromPlaywright('playwright-core/lib/utilsBundle') as { sourceMapSupport?: SourceMapSupport })
      .sourceMapSupport;
  } catch {
    return undefined;
  }
}

/**
 * Spares a Playwright worker a read of Playwright's own bundles. Every test step captures a stack
 * (its location), whose frames Playwright maps through the source-map-support of its utilsBundle:
 * that reads each frame's file in full, looking for a sourceMappingURL comment, and keeps it. The
 * first step of the first test read coreBundle.js, 3.6 MB held as 7 MB of UTF-16 for the rest of the
 * worker's life, about 50 ms of its start (profiled, Node 20). Playwright's modules carry no source
 * map, so their frames read the same; ours (a clone's .build/ has maps) are read as before. The
 * handler goes to source-map-support's own install, on the copy Playwright's runtime requires; a
 * Playwright without it changes nothing.
 */
export function spareStackFileReads(): void {
  playwrightSourceMapSupport()?.install?.({
    handleUncaughtExceptions: false,
    retrieveFile: (path) => (PLAYWRIGHT_LIB.test(path) ? WITHOUT_SOURCE_MAP : null),
  });
}
