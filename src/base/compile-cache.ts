import module from 'node:module';

/** Node's compile cache API, from Node 22.8 on (the NODE_COMPILE_CACHE variable from 22.1); Node 20 has neither. */
interface CompileCacheApi {
  enableCompileCache?: () => { directory?: string };
}

/**
 * Turns on Node's cache of compiled code for this process, and through NODE_COMPILE_CACHE for the
 * processes and threads it starts (Playwright's runner and workers, Prism's thread), where the running
 * Node has one: each compiles megabytes of Playwright's or Prism's code before its first request. The
 * cache holds compiled source, never a value the run reads; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
export function cacheCompiledCode(node = module as CompileCacheApi): void {
  const directory = node.enableCompileCache?.().directory;
  if (directory !== undefined) process.env.NODE_COMPILE_CACHE = directory;
}
