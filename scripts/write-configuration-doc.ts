/** npm run docs:configuration: writes docs/configuration.md from the variable table. */
import { writeFileSync } from 'node:fs';
import { CONFIGURATION_DOC_PATH, renderConfigurationDoc } from './configuration-doc.ts';

writeFileSync(CONFIGURATION_DOC_PATH, renderConfigurationDoc());
process.stdout.write(`Wrote ${CONFIGURATION_DOC_PATH}\n`);
