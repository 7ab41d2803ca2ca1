// @ts-check
// How a clone runs its TypeScript sources (`node --import ./scripts/typescript.mjs <entry>.ts`): Node's
// own type stripping where the running Node has it on, tsx's public loader where not (Node 20).
/** `process.features.typescript`: 'strip' or 'transform' where Node strips types (22.18, 24), absent on Node 20. */
const features = /** @type {{ typescript?: string | false }} */ (process.features);
if (!features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
