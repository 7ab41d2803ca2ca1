/**
 * The sandbox command (bin/sandbox.ts starts it): the stateful reference provider on its own, to watch
 * a complete live run on this machine, and the simulator integrators build against (docs/simulator.md).
 * PIX_SANDBOX_HOST and PIX_SANDBOX_PORT choose where it listens (default 127.0.0.1:4020);
 * PIX_SANDBOX_TLS_CERT_FILE and PIX_SANDBOX_TLS_KEY_FILE make it serve https, and
 * PIX_SANDBOX_CLIENT_CA_FILE demand client certificates that CA signed (mutual TLS). PIX_SANDBOX_DELAY_MS
 * answers every request that many ms later, as a far-away environment would. --help, --outcomes and
 * trigger start no server.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { consoleLine } from './console-line.ts';
import { outcomeLines, outcomeTable } from './outcomes.ts';
import { profileLines, profileList } from './profiles.ts';
import { type RunningSandbox, type SandboxTls, startSandbox } from './server.ts';
import { trigger, triggerUsage } from './trigger-cli.ts';
import { WEBHOOK_SIGNING_SECRET, WEBHOOK_TIMEOUT_MS } from './webhook.ts';

/** A variable of the sandbox as --help lists it; bin/ hands them over from the suite's one table. */
export interface SandboxVariable {
  readonly name: string;
  readonly purpose: string;
  readonly default?: string;
}

const CONTROL_TOKEN_MIN_LENGTH = 16;

function setting(name: string, fallback: string): string {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? fallback : value;
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function pem(name: string): Buffer | undefined {
  const path = setting(name, '');
  if (path === '') return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    return fail(
      `${name}: '${path}' cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}). Give the path of a PEM file.`,
    );
  }
}

function tlsSettings(): SandboxTls | undefined {
  const [cert, key, clientCa] = [
    pem('PIX_SANDBOX_TLS_CERT_FILE'),
    pem('PIX_SANDBOX_TLS_KEY_FILE'),
    pem('PIX_SANDBOX_CLIENT_CA_FILE'),
  ];
  if (cert === undefined && key === undefined && clientCa === undefined) return undefined;
  if (cert === undefined || key === undefined)
    fail(
      'PIX_SANDBOX_TLS_CERT_FILE and PIX_SANDBOX_TLS_KEY_FILE: give both (PEM) to serve https; PIX_SANDBOX_CLIENT_CA_FILE needs them too.',
    );
  try {
    createSecureContext({ cert, key, ...(clientCa === undefined ? {} : { ca: clientCa }) });
  } catch (error) {
    fail(
      `PIX_SANDBOX_TLS_CERT_FILE, PIX_SANDBOX_TLS_KEY_FILE, PIX_SANDBOX_CLIENT_CA_FILE: not usable for TLS (${(error as NodeJS.ErrnoException).code ?? 'refused by OpenSSL'}). Give a PEM certificate, the PEM key that belongs to it, and a PEM CA.`,
    );
  }
  return { cert, key, ...(clientCa === undefined ? {} : { clientCa }) };
}

function integer(name: string, fallback: number, max: number, unit: string): number {
  const text = setting(name, String(fallback));
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > max)
    fail(`${name}: '${text}' is not ${unit}. Set a number from 0 to ${max}, or unset it for ${fallback}.`);
  return value;
}

function controlToken(): string | undefined {
  const token = setting('PIX_SANDBOX_CONTROL_TOKEN', '');
  if (token === '') return undefined;
  if (token.length < CONTROL_TOKEN_MIN_LENGTH || /\s/.test(token))
    fail(
      `PIX_SANDBOX_CONTROL_TOKEN: give at least ${CONTROL_TOKEN_MIN_LENGTH} characters without spaces (e.g. openssl rand -hex 24), or unset it for a new one per start.`,
    );
  return token;
}

function webhookHosts(): string[] {
  const hosts = setting('PIX_SANDBOX_WEBHOOK_HOSTS', '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== '');
  const bad = hosts.find((host) => !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(host));
  if (bad !== undefined)
    fail(
      `PIX_SANDBOX_WEBHOOK_HOSTS: '${bad}' is not a host name. Give host names only, comma-separated (app,worker), no scheme or port.`,
    );
  return hosts;
}

export function sandboxHelp(
  commandLine: (args: string) => string,
  variables: readonly SandboxVariable[],
): string {
  const width = Math.max(...variables.map((v) => v.name.length));
  return [
    `${commandLine('')}: the reference provider, its scenarios, and the simulator integrators build against (docs/simulator.md).`,
    '',
    ...[
      ['', 'serve until Ctrl-C (prints the control token and the variables of a run)'],
      ['--outcomes [--json]', 'the outcome table: what a valid withdrawal meets, by the cents of its amount'],
      [
        '--profiles [--json]',
        'the provider profiles, readings and faults: /s/<scenario>, or a namespace\'s "profile" and "faults"',
      ],
      ['trigger …', "send a withdrawal's webhook again through a running sandbox"],
      ['--help', 'this help'],
    ].map(
      ([args = '', what = '']) =>
        `  ${commandLine(args).padEnd(commandLine('--outcomes [--json]').length)}  ${what}`,
    ),
    '',
    'Outcomes (the same in every profile and namespace):',
    ...outcomeLines().map((line) => `  ${line}`),
    '',
    'Trigger:',
    ...triggerUsage(commandLine).map((line) => `  ${line}`),
    '',
    'Variables:',
    ...variables.map(
      (v) =>
        `  ${v.name.padEnd(width)}  ${v.purpose}${v.default === undefined ? '' : ` (default: ${v.default})`}`,
    ),
    '',
    `Webhooks go to loopback hosts and those PIX_SANDBOX_WEBHOOK_HOSTS names; a handler has PIX_SANDBOX_WEBHOOK_TIMEOUT_MS (default ${WEBHOOK_TIMEOUT_MS}) to answer.`,
    '',
  ].join('\n');
}

/**
 * pix-certify sandbox with its arguments: --help, --outcomes [--json] and trigger print and exit;
 * nothing serves the sandbox.
 */
export async function sandboxCommand(
  args: readonly string[],
  commandLine: (args: string) => string,
  certifyCommand: string,
  variables: readonly SandboxVariable[],
): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(sandboxHelp(commandLine, variables));
    return;
  }
  if (args[0] === 'trigger') {
    process.exitCode = await trigger(args.slice(1), commandLine);
    return;
  }
  const json = args.length <= 2 && (args[1] === undefined || args[1] === '--json');
  if (args[0] === '--outcomes' && json) {
    process.stdout.write(
      args[1] === '--json'
        ? `${JSON.stringify(outcomeTable(), null, 2)}\n`
        : `${outcomeLines().join('\n')}\n`,
    );
    return;
  }
  if (args[0] === '--profiles' && json) {
    process.stdout.write(
      args[1] === '--json' ? `${JSON.stringify(profileList(), null, 2)}\n` : `${profileLines().join('\n')}\n`,
    );
    return;
  }
  if (args.length > 0)
    fail(
      `${commandLine('')}: unknown argument ${JSON.stringify(args[0])}; ${commandLine('--help')} lists what it takes.`,
    );
  await serveSandbox(certifyCommand, commandLine);
}

/** One write per turn of the event loop, not per line: at thousands of requests a second, a write each costs. */
function batchedLog(): (line: string) => void {
  let pending: string[] = [];
  const flush = (): void => {
    process.stdout.write(pending.join(''));
    pending = [];
  };
  return (line) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(`  ${line}\n`);
  };
}

/**
 * Serves the sandbox until SIGINT or SIGTERM and prints the variables of a live run against it, with
 * the command that starts one where the user is (`certifyCommand`: the sandbox knows nothing of the suite).
 */
export async function serveSandbox(
  certifyCommand: string,
  commandLine: (args: string) => string,
): Promise<void> {
  const host = setting('PIX_SANDBOX_HOST', '127.0.0.1');
  const portText = setting('PIX_SANDBOX_PORT', '4020');
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    fail(
      `PIX_SANDBOX_PORT: '${portText}' is not a port. Set a number from 0 to 65535, or unset it for 4020.`,
    );
  }

  const delayMs = integer('PIX_SANDBOX_DELAY_MS', 0, 60_000, 'a delay in milliseconds');
  const webhookTimeoutMs = integer(
    'PIX_SANDBOX_WEBHOOK_TIMEOUT_MS',
    WEBHOOK_TIMEOUT_MS,
    120_000,
    'a time in milliseconds',
  );
  const token = controlToken();
  const hosts = webhookHosts();

  const tls = tlsSettings();
  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox({
      host,
      port,
      log: batchedLog(),
      delayMs,
      webhookTimeoutMs,
      webhookHosts: hosts,
      ...(token === undefined ? {} : { controlToken: token }),
      ...(tls === undefined ? {} : { tls }),
    });
  } catch (error) {
    fail(
      `Could not listen on ${host}:${portText} (${error instanceof Error ? error.message : String(error)}). ` +
        'Set PIX_SANDBOX_PORT to a free port, or PIX_SANDBOX_HOST to an address of this machine.',
    );
  }

  const { clientId, clientSecret, certClient } = sandbox.credentials;
  // The certificate's public key as a file, given as PIX_CERT_FILE like the README's example: a public key, nothing secret.
  const certFile = join(tmpdir(), 'pix-sandbox-client-public-key.pem');
  writeFileSync(certFile, Buffer.from(certClient, 'base64'));
  const variables = [
    `PIX_BASE_URL=${sandbox.url}`,
    `PIX_CLIENT_ID=${clientId}`,
    `PIX_CLIENT_SECRET=${clientSecret}`,
    `PIX_CERT_FILE=${certFile}`,
    'PIX_ALLOW_PAYOUTS=1',
    'PIX_PAYEE_KEY_TYPE=EVP',
    'PIX_PAYEE_KEY=123e4567-e89b-12d3-a456-426614174000',
    'PIX_PAYEE_DOCUMENT=52998224725',
    'PIX_PAYEE_NAME="Sandbox Payee"',
  ].join(' ');

  const lines = [
    `Pix sandbox on ${sandbox.url}.`,
    ...(delayMs === 0 ? [] : [`Every request is answered ${delayMs} ms late (PIX_SANDBOX_DELAY_MS).`]),
    '',
    'Integrators: a namespace per test client (its own credentials, codes, tokens, journal), through the control API:',
    '',
    `  curl -s -X POST -H "Authorization: Bearer $PIX_SANDBOX_CONTROL_TOKEN" -d '{"name":"job-1"}' ${sandbox.url}/_sim/namespaces`,
    '',
    token === undefined
      ? `  PIX_SANDBOX_CONTROL_TOKEN=${sandbox.controlToken}   (a new one per start; set it to keep one)`
      : '  The control token is PIX_SANDBOX_CONTROL_TOKEN.',
    '',
    `A valid withdrawal's amount chooses its outcome (cents .11 payout fails, .50 answers 500, ...): ${commandLine('--outcomes')} lists them.`,
    `Webhooks go to loopback PostBackUrls${hosts.length === 0 ? '' : ` and ${hosts.join(', ')}`} (PIX_SANDBOX_WEBHOOK_HOSTS), with ${webhookTimeoutMs} ms to answer (PIX_SANDBOX_WEBHOOK_TIMEOUT_MS);`,
    `the reference ones are signed (Standard Webhooks) with ${WEBHOOK_SIGNING_SECRET}.`,
    '',
    'Providers: a live run against the reference profile behind the bare paths (paste in another terminal):',
    '',
    `  ${variables} ${certifyCommand}`,
    '',
    ...(tls === undefined
      ? []
      : [
          'It serves https: add PIX_CA_FILE=<the CA that signed PIX_SANDBOX_TLS_CERT_FILE, or that file if self-signed>.',
          ...(tls.clientCa === undefined
            ? []
            : [
                'It demands a client certificate: add PIX_TLS_CERT_FILE and PIX_TLS_KEY_FILE (or PIX_TLS_PFX_FILE and',
                'PIX_TLS_PASSPHRASE) with one that PIX_SANDBOX_CLIENT_CA_FILE signed.',
              ]),
          '',
        ]),
    `Another profile or a fault: PIX_BASE_URL=${sandbox.url}/s/<scenario>; ${commandLine('--profiles')} lists them.`,
    'Ctrl-C stops the sandbox.',
    '',
  ];
  process.stdout.write(`${lines.map(consoleLine).join('\n')}\n`);

  const stop = (): void => {
    void sandbox.close().then(() => {
      process.stdout.write('Sandbox stopped.\n');
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
