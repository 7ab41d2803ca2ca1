/** Where the suite's own files are, for modules that must not load the spec to find it. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPEC_PATH = join(ROOT, 'openapi', 'pix-withdrawal.yaml');
