/**
 * npm run sandbox, pix-certify sandbox: the reference provider on this machine (sandbox/main.ts), told
 * how the user starts a certification where they are, and its variables from the suite's one table.
 */
import { suiteCommand } from '../src/base/invocation.ts';
import { VARIABLE_TABLE } from '../src/config/variables.ts';
import { sandboxCommand } from '../sandbox/main.ts';

await sandboxCommand(
  process.argv.slice(2),
  (args) => suiteCommand('sandbox', args),
  suiteCommand('certify'),
  VARIABLE_TABLE.filter((variable) => variable.name.startsWith('PIX_SANDBOX_')),
);
