#!/usr/bin/env node
/**
 * pix-certify, the installed command: `pix-certify` alone or `pix-certify certify` runs the
 * certification (the embedded mock when PIX_BASE_URL is unset), `list` lists the checks a run would
 * judge and sends nothing, and each other command starts the module its npm script starts from the
 * sources. The Node version and the dependencies are checked before any command is loaded.
 */
import { ALIASES, type Command } from './command-help.ts';
import { COMMANDS } from './commands.ts';
import { missingDependency, moduleNotFound, nodeProblem } from './installation.ts';
import { cacheCompiledCode } from '../src/base/compile-cache.ts';

function stop(problem: string): never {
  process.stderr.write(`pix-certify: ${problem}\n`);
  process.exit(2);
}

const isCommand = (word: string): word is Command => Object.hasOwn(COMMANDS, word);

/** The command and its arguments; options alone (or nothing) mean certify. */
function route(args: readonly string[]): { command: Command; args: string[] } {
  const [first, ...rest] = args;
  if (first === undefined || first.startsWith('-')) return { command: 'certify', args: [...args] };
  if (isCommand(first)) return { command: first, args: rest };
  const alias = ALIASES[first];
  if (alias !== undefined) return { command: alias[0], args: [alias[1], ...rest] };
  const known = [...Object.keys(COMMANDS), ...Object.keys(ALIASES)].join(', ');
  return stop(
    `unknown command ${JSON.stringify(first)} (commands: ${known}); a Playwright file filter goes after certify: pix-certify certify ${first}`,
  );
}

const problem = nodeProblem(process.versions.node) ?? missingDependency((name) => import.meta.resolve(name));
if (problem !== undefined) stop(problem);
const { command, args } = route(process.argv.slice(2));
// Each command reads its own arguments from process.argv, as when its npm script starts it.
process.argv.splice(2, Infinity, ...args);
// Before the command's modules load, so that the cache holds them as well (docs/performance.md).
cacheCompiledCode();
try {
  await COMMANDS[command].load();
} catch (error) {
  const missing = moduleNotFound(error);
  if (missing === undefined) throw error;
  stop(missing);
}
