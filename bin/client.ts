/**
 * pix-certify client (npm run client -- -- <command…>): certifies an integrator's own client and
 * webhook handler against the simulator (src/run/client-run.ts). This file parses the
 * arguments and joins the parts src/ may not import: sandbox/'s simulator and reporters/' writer.
 */
import { parseArgs } from 'node:util';
import { startSandbox } from '../sandbox/server.ts';
import { parseDuration } from '../src/base/duration.ts';
import { suiteCommand } from '../src/base/invocation.ts';
import { clientChecks } from '../src/checks/catalogue.ts';
import { readClientSettings, type ClientSettings } from '../src/config/client-settings.ts';
import { ConfigError } from '../src/config/errors.ts';
import { buildClientCertification } from '../src/report/client-certification.ts';
import { runClientCertification, type ClientEvidence, type ClientInvocation } from '../src/run/client-run.ts';
import { consoleLine } from '../src/secrets/redact.ts';
import { layoutFor } from '../reporters/certification/layout.ts';
import { writeCertification } from '../reporters/certification/write.ts';
import { USAGE } from './client-usage.ts';
import { errorPrefix } from './command-help.ts';

const EXIT_ERROR = 2;
const OPTIONS = ['help', 'serve', 'duration', 'handler', 'host', 'port', 'timeout'];

class UsageError extends Error {}

/** Every line starts with the command as typed, secrets masked and controls escaped. */
function tell(line: string): void {
  process.stderr.write(`${consoleLine(`${errorPrefix('client')} ${line}`)}\n`);
}

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

function parseInvocation(args: readonly string[]): ClientInvocation | 'help' {
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
  return {
    command,
    serve: values.serve === true,
    serveMs: (seconds(text('duration'), '--duration') ?? 15 * 60) * 1000,
    handler,
    host: text('host') ?? '127.0.0.1',
    port: portOf(text('port')),
    timeoutS: seconds(text('timeout'), '--timeout'),
  };
}

/** Judged by the client and handler checks, written by certify's writer, to the subject's own directory. */
async function certify(
  evidence: ClientEvidence,
  settings: ClientSettings,
  invocation: ClientInvocation,
): Promise<number> {
  const handler = evidence.subject === 'handler';
  const report = buildClientCertification({
    ...evidence,
    checks: clientChecks(evidence.subject),
    // Stable from run to run (the port and the namespace are new each time), so that compare and history line runs up.
    baseUrl: invocation.handler ?? 'the simulator on loopback (pix-certify client)',
    ...(settings.environmentName === undefined ? {} : { environmentName: settings.environmentName }),
    durationMs: Date.now() - evidence.startTime.getTime(),
    strict: settings.strict,
    requireComplete: settings.requireComplete,
  });
  const dir = handler ? settings.handlerReportDir : settings.reportDir;
  await writeCertification(report, {
    dir,
    signingKey: settings.signingKey,
    layout: layoutFor(process.stdout, process.env),
  });
  return report.exitCode;
}

async function main(): Promise<number> {
  let invocation: ClientInvocation | 'help';
  let settings: ClientSettings;
  try {
    invocation = parseInvocation(process.argv.slice(2));
    if (invocation === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    settings = readClientSettings(process.env);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError)) throw error;
    for (const line of error.message.split('\n')) tell(line);
    if (error instanceof UsageError) tell(`${suiteCommand('client', '--help')} tells how to use it`);
    return EXIT_ERROR;
  }
  const chosen = invocation;
  return runClientCertification(chosen, settings, {
    startSimulator: startSandbox,
    tell,
    certify: (evidence) => certify(evidence, settings, chosen),
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    tell(`suite error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(EXIT_ERROR);
  },
);
