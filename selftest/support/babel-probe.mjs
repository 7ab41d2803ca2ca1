// @ts-check
// Loaded with --import through NODE_OPTIONS (selftest/slow/worker-transform.test.ts): as a Playwright
// worker exits, tells for each module of PROBED_MODULES (path#export, comma-separated) whether Node
// loaded it itself: the export's text is the source's with its types stripped as Node strips them,
// where Playwright's Babel would have printed it anew. Writes BABEL_PROBE_DIR/<pid>.json.
import { readFileSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';

/** `module.stripTypeScriptTypes` (Node 22.13 and later), absent from Node 20's types. */
const node = /** @type {{ stripTypeScriptTypes: (code: string) => string }} */ (
  /** @type {unknown} */ (module)
);
import { join } from 'node:path';

const dir = process.env.BABEL_PROBE_DIR;
const require = createRequire(import.meta.url);
if (dir !== undefined)
  process.once('exit', () => {
    // Playwright sets it once the worker starts, not in the environment it forks it with.
    if (process.env.TEST_WORKER_INDEX === undefined) return;
    const loadedByNode = (process.env.PROBED_MODULES ?? '').split(',').map((probed) => {
      const [path = '', name = ''] = probed.split('#');
      const exported = String(require(path)[name]);
      return node.stripTypeScriptTypes(readFileSync(path, 'utf8')).includes(exported);
    });
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(loadedByNode));
  });
