/**
 * Where the suite's own files are, wherever it runs from: its TypeScript sources (a clone) or the
 * compiled package, whose modules live under dist/ with the data files (package.json, the spec, the
 * report schema) beside dist/. Nothing here depends on the current directory: that belongs to the
 * user (.env, reports/).
 */
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const THIS_FILE = fileURLToPath(import.meta.url);

/** `.js` in the compiled package, `.ts` from the sources: how the suite names its own modules to Playwright. */
export const MODULE_EXTENSION = extname(THIS_FILE) === '.js' ? '.js' : '.ts';
/** The root of the module tree: the repository, or dist/ in the compiled package. */
export const CODE_ROOT = join(dirname(THIS_FILE), '..', '..');
/** The package's root, which holds package.json and the data files. */
export const ROOT = MODULE_EXTENSION === '.js' ? join(CODE_ROOT, '..') : CODE_ROOT;
export const SPEC_PATH = join(ROOT, 'openapi', 'pix-withdrawal.yaml');
/** The simulator's control API (pix-certify sandbox, /_sim/). */
export const CONTROL_SPEC_PATH = join(ROOT, 'openapi', 'simulator-control.yaml');
export const SCHEMA_PATH = join(ROOT, 'reporters', 'certification.schema.json');
export const PACKAGE_JSON_PATH = join(ROOT, 'package.json');
export const PLAYWRIGHT_CONFIG_PATH = join(CODE_ROOT, `playwright.config${MODULE_EXTENSION}`);
/** One of the suite's modules, by its path from the module root without extension (`reporters/certification`). */
export const suiteModule = (path: string): string => join(CODE_ROOT, `${path}${MODULE_EXTENSION}`);
