/**
 * npm run receiver: the webhook receiver as a long-lived service, deployed where the provider reaches
 * it (a small VM, a container, the provider's own network) and shared by any number of suite runs,
 * which reach it with PIX_WEBHOOK_RECEIVER_URL and PIX_WEBHOOK_RECEIVER_TOKEN. Configured by the
 * PIX_RECEIVER_* variables (.env.example); a configuration problem is one line and exit code 2.
 */
import { isLoopbackHost } from '../src/config/config.ts';
import { startReceiver, type RunningReceiver } from '../src/receiver/receiver.ts';
import { loadReceiverSettings, type ServiceSettings } from '../src/receiver/settings.ts';
import { ConfigError } from '../src/config/errors.ts';
import { consoleLine } from '../src/secrets/redact.ts';
import { commandHelp, errorPrefix, helpAsked } from './command-help.ts';

const PREFIX = errorPrefix('receiver');

if (helpAsked(process.argv.slice(2))) {
  const { variablesText } = await import('./usage.ts');
  const about =
    'Deploy it where the provider reaches it; suite runs share it through PIX_WEBHOOK_RECEIVER_URL and\nPIX_WEBHOOK_RECEIVER_TOKEN. Its control API is under /_receiver/v1/ with the token (docs/receiver.md).';
  process.stdout.write(`${commandHelp('receiver', `${about}\n\n${variablesText('PIX_RECEIVER_')}`)}\n`);
  process.exit(0);
}

function stop(message: string): never {
  process.stderr.write(`${PREFIX} ${consoleLine(message)}\n`);
  process.exit(2);
}

/** A start-up failure as a configuration error: the variable to change and how. */
function startProblem(error: NodeJS.ErrnoException): string {
  const reason = error instanceof Error ? error.message : String(error);
  if (error.syscall === 'listen' && error.code === 'EADDRINUSE')
    return `PIX_RECEIVER_PORT: could not listen (${reason}). Choose a free port.`;
  if (error.syscall === 'listen')
    return `PIX_RECEIVER_HOST: could not listen (${reason}). Give an address of this machine, or 0.0.0.0 for all.`;
  return `PIX_RECEIVER_DATA_DIR: could not use it (${reason}). Give a directory the receiver can create and write.`;
}

function describe(settings: ServiceSettings, receiver: RunningReceiver): string {
  const tls = settings.tls;
  const certificates =
    tls?.clientCa === undefined
      ? ''
      : tls.requireClientCert
        ? ', client certificates required'
        : ', client certificates requested';
  const { port } = new URL(receiver.url);
  const everywhere = settings.host === '0.0.0.0' || settings.host === '::';
  const where = everywhere
    ? `every address of this machine (${receiver.url} from here)`
    : isLoopbackHost(settings.host)
      ? `this machine only (${receiver.url})`
      : receiver.url;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const lines = [
    `${PREFIX} bound to ${host}:${port}, ${where}, ${tls === undefined ? 'plain HTTP' : 'TLS'}${certificates}`,
    `${PREFIX} deliveries kept in ${settings.dataDir} (${receiver.restoredRuns} runs restored); a run is forgotten when it closes or 24 h after it opened`,
    `${PREFIX} control API under /_receiver/v1/ with the token; Ctrl-C stops it`,
  ];
  return lines.map(consoleLine).join('\n');
}

let settings: ServiceSettings;
try {
  settings = loadReceiverSettings();
} catch (error) {
  if (error instanceof ConfigError) stop(error.message);
  throw error;
}

const receiver = await startReceiver({
  host: settings.host,
  port: settings.port,
  token: settings.token,
  shared: true,
  dataDir: settings.dataDir,
  ...(settings.tls === undefined ? {} : { tls: settings.tls }),
  log: (line) => process.stderr.write(`${PREFIX} ${line}\n`),
}).catch((error: unknown) => stop(startProblem(error as NodeJS.ErrnoException)));

process.stdout.write(`${describe(settings, receiver)}\n`);
if (settings.tls === undefined && !isLoopbackHost(settings.host))
  process.stderr.write(
    `${PREFIX} warning: plain HTTP on ${consoleLine(settings.host)}: the token and the webhooks travel unencrypted unless a TLS proxy is in front (PIX_RECEIVER_TLS_CERT_FILE gives the receiver its own TLS).\n`,
  );

const shutDown = (): void => {
  void receiver.close().then(() => {
    process.stdout.write(`${PREFIX} stopped\n`);
    process.exit(0);
  });
};
process.once('SIGINT', shutDown);
process.once('SIGTERM', shutDown);
