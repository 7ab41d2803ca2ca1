/**
 * The commands of pix-certify, each with the module it loads (only when chosen); what --help says of
 * each is command-help.ts. A new command is one entry in each.
 */
import type { Command } from './command-help.ts';

export const COMMANDS = {
  certify: {
    load: () => import('./certify.ts'),
  },
  compare: {
    load: () => import('./compare.ts'),
  },
  history: {
    load: () => import('./history.ts'),
  },
  sandbox: {
    load: () => import('./sandbox.ts'),
  },
  mock: {
    load: () => import('./mock.ts'),
  },
  receiver: {
    load: () => import('./receiver.ts'),
  },
  lifetime: {
    load: () => import('./lifetime.ts'),
  },
  client: {
    load: () => import('./client.ts'),
  },
  verify: {
    // verify runs by itself only as the entry script, so that importing it never checks anything unasked.
    load: async () => {
      const { main } = await import('./verify.ts');
      process.exitCode = main(process.argv.slice(2));
    },
  },
} as const satisfies Record<Command, { load: () => Promise<unknown> }>;
