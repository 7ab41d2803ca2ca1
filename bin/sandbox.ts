/**
 * npm run sandbox, pix-certify sandbox: the reference provider on this machine (sandbox/main.ts), told
 * how the user starts a certification where they are, and its variables from the suite's one table.
 */
import { INSTALLED, suiteCommand } from '../src/base/invocation.ts';
import { VARIABLE_TABLE } from '../src/config/variables.ts';
import { sandboxCommand, sandboxHelp } from '../sandbox/main.ts';
import { commandHelp, helpAsked } from './command-help.ts';

const args = process.argv.slice(2);
const commandLine = (more: string): string => suiteCommand('sandbox', more);
const variables = VARIABLE_TABLE.filter((variable) => variable.name.startsWith('PIX_SANDBOX_'));

if (helpAsked(args)) {
  process.stdout.write(`${commandHelp('sandbox', sandboxHelp(commandLine, variables).trimEnd())}\n`);
  process.exit(0);
}

// Installed, the command is run through npx: a bare pix-certify is not on the PATH of a project.
await sandboxCommand(args, commandLine, INSTALLED ? 'npx pix-certify' : suiteCommand('certify'), variables);
