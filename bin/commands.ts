/**
 * The commands of pix-certify, each with the module it loads (only when chosen) and what --help says
 * of it. A new command is one entry here.
 */
export const COMMANDS = {
  certify: {
    load: () => import('./certify.ts'),
    usage: 'certify',
    purpose: 'the certification (the default)',
  },
  compare: {
    load: () => import('./compare.ts'),
    usage: 'compare <old.json> <new.json>',
    purpose: 'what changed between two certifications',
  },
  sandbox: {
    load: () => import('../sandbox/main.ts'),
    usage: 'sandbox',
    purpose: 'the reference provider with its readings and faults, on this machine',
  },
  mock: {
    load: () => import('./mock.ts'),
    usage: 'mock',
    purpose: 'the embedded mock on its own (PIX_MOCK_PORT)',
  },
  receiver: {
    load: () => import('./receiver.ts'),
    usage: 'receiver',
    purpose: 'the webhook receiver as a long-lived service (PIX_RECEIVER_* variables)',
  },
  verify: {
    // verify runs by itself only as the entry script, so that importing it never checks anything unasked.
    load: async () => {
      const { main } = await import('./verify.ts');
      process.exitCode = main(process.argv.slice(2));
    },
    usage: 'verify <report dir>',
    purpose: "checks a report's hashes and signature: 0 valid, 1 changed or badly signed, 2 unreadable",
  },
} as const satisfies Record<string, { load: () => Promise<unknown>; usage: string; purpose: string }>;

export type Command = keyof typeof COMMANDS;

/** Commands that are another command with an option. */
export const ALIASES: Readonly<Record<string, readonly [Command, string]>> = { list: ['certify', '--list'] };
