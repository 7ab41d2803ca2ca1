/** npm run docs:checks: writes docs/checks.md from the check families. */
import { writeFileSync } from 'node:fs';
import { CHECKS_DOC_PATH, renderChecksDoc } from './checks-doc.ts';

writeFileSync(CHECKS_DOC_PATH, renderChecksDoc());
process.stdout.write(`Wrote ${CHECKS_DOC_PATH}\n`);
