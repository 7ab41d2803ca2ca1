/**
 * What --help says of each command of pix-certify. Kept apart from the loaders (commands.ts) so that
 * the help text never imports the commands it describes.
 */
export const COMMAND_HELP = {
  certify: { usage: 'certify', purpose: 'the certification (the default)' },
  compare: { usage: 'compare <old.json> <new.json>', purpose: 'what changed between two certifications' },
  history: {
    usage: 'history <report dirs or .json…>',
    purpose: 'history.html (--out FILE) and a table: each check across runs, flipped checks first',
  },
  sandbox: {
    usage: 'sandbox',
    purpose: 'the reference provider with its readings and faults, on this machine',
  },
  mock: { usage: 'mock', purpose: 'the embedded mock on its own (PIX_MOCK_PORT)' },
  receiver: {
    usage: 'receiver',
    purpose: 'the webhook receiver as a long-lived service (PIX_RECEIVER_* variables)',
  },
  lifetime: {
    usage: 'lifetime --max <2h|90m|600s>',
    purpose: 'how long a token is accepted, measured alone, in a report directory of its own',
  },
  client: {
    usage: 'client [--timeout S] -- <command…> | --serve [--duration 15m] | --handler <url>',
    purpose: "certifies an integrator's own client and webhook handler against the simulator",
  },
  verify: {
    usage: 'verify <report dir>',
    purpose: "checks a report's hashes and signature: 0 valid, 1 changed or badly signed, 2 unreadable",
  },
} as const satisfies Record<string, { usage: string; purpose: string }>;

export type Command = keyof typeof COMMAND_HELP;

/** Commands that are another command with an option. */
export const ALIASES: Readonly<Record<string, readonly [Command, string]>> = { list: ['certify', '--list'] };
