/**
 * What --help says of each command of pix-certify, its exit codes and how its errors begin: the one
 * source of `pix-certify --help`, each command's own --help, and the README's tables (a self-test
 * holds the README to it). Kept apart from the loaders (commands.ts) so that the help text never
 * imports the commands it describes.
 */
import { suiteCommand } from '../src/base/invocation.ts';

type ExitCodes = readonly (readonly [code: 0 | 1 | 2, meaning: string])[];

const SERVICE_EXIT_CODES: ExitCodes = [
  [0, 'stopped with Ctrl-C (or --help printed)'],
  [2, 'a configuration problem, one line naming the variable (a port in use included)'],
];

export const COMMAND_HELP = {
  certify: {
    usage: 'certify',
    purpose: "the certification (the default); Playwright's options pass through",
    exitCodes: [
      [0, 'PASSED; WARNING; INCOMPLETE of a mock run, or of a live run with PIX_REQUIRE_COMPLETE=0'],
      [
        1,
        'FAILED; INCOMPLETE of a live run, unless PIX_REQUIRE_COMPLETE=0; WARNING or INCOMPLETE with PIX_STRICT=1; a regression with PIX_FAIL_ON_DRIFT=1',
      ],
      [
        2,
        'ERROR: a configuration or suite error, one line per problem naming the variable, before anything is sent',
      ],
    ],
  },
  compare: {
    usage: 'compare <old> <new>',
    purpose: 'what changed between two certifications (report directories or certification.json files)',
    exitCodes: [
      [0, 'nothing regressed'],
      [1, 'a check or an observation regressed (whatever PIX_FAIL_ON_DRIFT says)'],
      [2, 'a side cannot be compared (missing, not a certification), or the command line is wrong'],
    ],
  },
  history: {
    usage: 'history <report dirs or .json…>',
    purpose: 'history.html (--out FILE) and a table: each environment its series, each check across runs',
    exitCodes: [
      [0, 'the history was written'],
      [2, 'no certification could be read, or the command line is wrong'],
    ],
  },
  verify: {
    usage: 'verify <report dir>',
    purpose: "checks a report's consistency, hashes and signature",
    exitCodes: [
      [0, 'valid'],
      [
        1,
        'an artifact changed or is missing, the verdict, counts or exit code disagree with the checks, the signature is bad, or another key signed',
      ],
      [2, 'the directory or its certification.json cannot be read, or the command line is wrong'],
    ],
  },
  lifetime: {
    usage: 'lifetime --max <duration>',
    purpose: 'how long a token is accepted, measured alone, in a report directory of its own',
    exitCodes: [
      [0, 'measured'],
      [1, 'interrupted (Ctrl-C), or not measurable against this environment'],
      [2, 'a configuration or command-line mistake, before anything is sent'],
    ],
  },
  sandbox: {
    usage: 'sandbox',
    purpose:
      'the reference provider with its faults, and the simulator integrators build against, on this machine',
    exitCodes: SERVICE_EXIT_CODES,
  },
  mock: {
    usage: 'mock',
    purpose: 'the embedded mock on its own (PIX_MOCK_PORT)',
    exitCodes: SERVICE_EXIT_CODES,
  },
  receiver: {
    usage: 'receiver',
    purpose: 'the webhook receiver as a long-lived service (PIX_RECEIVER_* variables)',
    exitCodes: SERVICE_EXIT_CODES,
  },
  client: {
    usage: 'client -- <command…>',
    purpose: "certifies an integrator's own client and webhook handler against the simulator",
    exitCodes: [
      [
        0,
        "PASSED, or a WARNING that risks no money (INCOMPLETE too under PIX_REQUIRE_COMPLETE=0); the command's own exit code is shown, never taken for this one",
      ],
      [
        1,
        'FAILED; a finding that can pay twice or lose a payout, whatever its level; INCOMPLETE (unless PIX_REQUIRE_COMPLETE=0); WARNING under PIX_STRICT=1',
      ],
      [
        2,
        'the command line or the configuration is wrong, the command sent the simulator no request, or the suite went wrong',
      ],
    ],
  },
} as const satisfies Record<string, { usage: string; purpose: string; exitCodes: ExitCodes }>;

export type Command = keyof typeof COMMAND_HELP;

/** Commands that are another command with an option. */
export const ALIASES: Readonly<Record<string, readonly [Command, string]>> = { list: ['certify', '--list'] };

/** How every error line of a command begins: the command as the user types it, `pix-certify compare:`. */
export const errorPrefix = (command: Command): string =>
  command === 'certify' ? 'pix-certify:' : `pix-certify ${command}:`;

/** Two columns, the first padded to its widest entry. */
export function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/** The `Exit codes:` block of a command's help. */
export function exitCodesText(command: Command): string {
  const rows = COMMAND_HELP[command].exitCodes.map(([code, meaning]): [string, string] => [
    String(code),
    meaning,
  ]);
  return ['Exit codes:', ...columns(rows)].join('\n');
}

/** A command's --help: its usage line, what it does, `details` when it has more to say, and its exit codes. */
export function commandHelp(command: Command, details = ''): string {
  const { usage, purpose } = COMMAND_HELP[command];
  const [name, ...args] = usage.split(' ');
  return [
    `Usage: ${suiteCommand(command === 'certify' ? 'certify' : (name as Command), args.join(' '))}`,
    '',
    `${purpose[0]?.toUpperCase() ?? ''}${purpose.slice(1)}.`,
    ...(details === '' ? [] : ['', details]),
    '',
    exitCodesText(command),
  ].join('\n');
}

/** Whether the arguments ask for help: a service prints it and exits instead of starting. */
export const helpAsked = (args: readonly string[]): boolean => args.includes('--help') || args.includes('-h');
