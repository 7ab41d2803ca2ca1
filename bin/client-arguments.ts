/** pix-certify client's arguments: the invocation, or a UsageError saying what to type instead. */
import { parseArgs } from 'node:util';
import { parseDuration } from '../src/base/duration.ts';
import type { ClientInvocation } from '../src/run/client-run.ts';

const OPTIONS = ['help', 'serve', 'duration', 'handler', 'host', 'port', 'timeout', 'readings'];

export class UsageError extends Error {}

function seconds(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  const value = parseDuration(text);
  if (value === undefined)
    throw new UsageError(`${option} ${text}: give a duration from 1s to 24h, e.g. 90s, 15m or 1h`);
  return value;
}

function portOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65_535))
    throw new UsageError(`--port ${text}: give a port from 0 (any free one) to 65535`);
  return port;
}

export function parseInvocation(args: readonly string[]): ClientInvocation | 'help' {
  const dashes = args.indexOf('--');
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const { values, positionals } = parseArgs({
    args: [...own],
    allowPositionals: true,
    strict: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      serve: { type: 'boolean' },
      duration: { type: 'string' },
      handler: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      timeout: { type: 'string' },
      readings: { type: 'string' },
    },
  });
  if (values.help === true) return 'help';
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const unknown = own.filter((a) => a.startsWith('--') && !OPTIONS.includes(a.slice(2).split('=')[0] ?? ''));
  if (unknown.length > 0)
    throw new UsageError(`unknown option ${unknown.join(' ')}; the command to certify goes after --`);
  // npm run client -- node app.js: npm drops the first --, so words before any -- are the command.
  const command = dashes === -1 ? positionals : args.slice(dashes + 1);
  const handler = text('handler');
  const modes = [command.length > 0, values.serve === true, handler !== undefined].filter(Boolean);
  if (modes.length !== 1)
    throw new UsageError('give exactly one of: -- <command…>, --serve, --handler <url>');
  const readings = text('readings');
  if (readings !== undefined && command.length === 0)
    throw new UsageError('--readings runs a command once per reading: give it with -- <command…>');
  return {
    command,
    serve: values.serve === true,
    serveMs: (seconds(text('duration'), '--duration') ?? 15 * 60) * 1000,
    handler,
    host: text('host') ?? '127.0.0.1',
    port: portOf(text('port')),
    timeoutS: seconds(text('timeout'), '--timeout'),
    readings,
  };
}
