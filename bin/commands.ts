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
} as const satisfies Record<string, { load: () => Promise<unknown>; usage: string; purpose: string }>;

export type Command = keyof typeof COMMANDS;

/** Commands that are another command with an option. */
export const ALIASES: Readonly<Record<string, readonly [Command, string]>> = { list: ['certify', '--list'] };
