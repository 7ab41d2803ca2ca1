// @ts-check
// How a clone runs its TypeScript sources (`node --import ./scripts/typescript.mjs <entry>.ts`): Node's
// own type stripping where the running Node has it on, tsx's public loader where not (Node 20).
import module from 'node:module';

/** `module.enableCompileCache` (Node 22.8 and later), absent from Node 20's types. */
const node = /** @type {{ enableCompileCache?: () => unknown }} */ (/** @type {unknown} */ (module));
// Before the entry's modules load, not when its code first runs: the cache then holds them stripped and
// compiled too (docs/performance.md). NODE_DISABLE_COMPILE_CACHE=1 turns it off, as for any Node program.
node.enableCompileCache?.();

/** `process.features.typescript`: 'strip' or 'transform' where Node strips types (22.18, 24), absent on Node 20. */
const features = /** @type {{ typescript?: string | false }} */ (process.features);
if (!features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
