/**
 * What `pix-certify --help` (npm run certify -- --help from the sources) and `--version` print. The variables come from the configuration's
 * own table, so the help cannot drift from what loadConfig reads.
 */
import { createRequire } from 'node:module';
import { ALIASES, COMMAND_HELP, columns, exitCodesText } from './command-help.ts';
import { suiteVersion } from '../src/run/run-metadata.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { VARIABLE_TABLE } from '../src/config/variables.ts';
import { INSTALLED, suiteCommand } from '../src/base/invocation.ts';

const FLAGS: readonly (readonly [string, string])[] = [
  ['--baseline <file>', 'compare the run with an earlier certification.json (also PIX_BASELINE)'],
  ['--list', 'print the payout plan and the checks the selected tests judge; send nothing'],
  ['--help, -h', 'print this help'],
  ['--version', 'print the suite, spec, Playwright and Node versions'],
];

function variableRows(prefix = 'PIX_'): [string, string][] {
  return VARIABLE_TABLE.filter((v) => v.name.startsWith(prefix)).map((v) => {
    const notes = [
      ...(v.default === undefined ? [] : [`default: ${v.default}`]),
      ...(v.liveOnly === true ? ['live only'] : []),
    ];
    return [v.name, notes.length === 0 ? v.purpose : `${v.purpose} (${notes.join('; ')})`];
  });
}

/** The `Variables:` block of a service's --help (mock, receiver): those whose names start with `prefix`. */
export function variablesText(prefix: string): string {
  return ['Variables:', ...columns(variableRows(prefix))].join('\n');
}

export function helpText(): string {
  return [
    // Installed, only pix-certify exists; a clone has its npm scripts too.
    ...(INSTALLED
      ? ['Usage: pix-certify [command] [options] [Playwright options]']
      : [
          'Usage: npm run certify -- [options] [Playwright options] (the other commands: npm run <command> -- …)',
          '       (installed: pix-certify [command] [options] [Playwright options])',
        ]),
    '',
    'Commands:',
    ...columns([
      ...Object.values(COMMAND_HELP).map(({ usage, purpose }): [string, string] => [usage, purpose]),
      ...Object.entries(ALIASES).map(([alias, [command, option]]): [string, string] => [
        alias,
        `${command} ${option}`,
      ]),
    ]),
    '',
    'Certifies the environment at PIX_BASE_URL (unset: the embedded mock) against the Pix withdrawal',
    'interface and writes the certification to PIX_REPORT_DIR.',
    '',
    'Options:',
    ...columns(FLAGS),
    '',
    'Variables (from the environment, or from .env, which the environment overrides; "live only": needs',
    'PIX_BASE_URL, and set without it stops the run):',
    ...columns(variableRows()),
    '',
    exitCodesText('certify'),
    '',
    `Each command's --help (${suiteCommand('compare', '--help')}) lists its own exit codes.`,
    '',
    "Playwright's own options pass through: --grep <regexp> (tags: @smoke @negative @auth @webhook @payout",
    '@mutating), --grep-invert, --shard <i/n>, --workers <n>, --reporter <name>, --timeout <ms> and the',
    'others that npx playwright test --help lists.',
  ].join('\n');
}

export function versionText(): string {
  const playwright = createRequire(import.meta.url)('@playwright/test/package.json') as { version: string };
  const spec = loadSpec();
  return [
    `pix-withdrawal-conformance ${suiteVersion()}`,
    `spec openapi/pix-withdrawal.yaml ${spec.version} (sha256 ${spec.hash.slice(0, 12)})`,
    `Playwright ${playwright.version}`,
    `Node ${process.versions.node}`,
  ].join('\n');
}
