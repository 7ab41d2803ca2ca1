/**
 * How the person at the terminal types a command of the suite where they are: the installed package
 * has one command, `pix-certify`; a clone of the repository has npm scripts. Every message that names
 * a command (help, errors, closing lines, hints in the reports) asks here, so that the installed tool
 * never sends its user to an npm script that does not exist in their project.
 */
import { MODULE_EXTENSION } from './paths.ts';

/** The commands a message may name: pix-certify's, and `list` (certify --list). */
export type SuiteCommand =
  | 'certify'
  | 'list'
  | 'compare'
  | 'verify'
  | 'history'
  | 'sandbox'
  | 'mock'
  | 'receiver'
  | 'lifetime'
  | 'client';

/** Installed, the suite runs compiled from the package's dist/; a clone runs its TypeScript sources. */
export const INSTALLED = MODULE_EXTENSION === '.js';

const NPM_SCRIPT: Readonly<Record<SuiteCommand, readonly [script: string, option?: string]>> = {
  certify: ['certify'],
  list: ['certify', '--list'],
  compare: ['compare'],
  verify: ['verify'],
  lifetime: ['lifetime'],
  history: ['history'],
  sandbox: ['sandbox'],
  mock: ['mock'],
  receiver: ['receiver'],
  client: ['client'],
};

/**
 * The command line to type: `suiteCommand('verify', 'reports/')` is `pix-certify verify reports/`
 * once installed and `npm run verify -- reports/` in a clone. Certify's options follow pix-certify
 * directly (`pix-certify --help`), as its usage says.
 */
export function suiteCommand(command: SuiteCommand, args = '', installed = INSTALLED): string {
  if (installed) {
    const words = command === 'certify' ? [] : [command];
    return ['pix-certify', ...words, ...(args === '' ? [] : [args])].join(' ');
  }
  const [script, option] = NPM_SCRIPT[command];
  const rest = [...(option === undefined ? [] : [option]), ...(args === '' ? [] : [args])];
  return `npm run ${script}${rest.length === 0 ? '' : ` -- ${rest.join(' ')}`}`;
}
