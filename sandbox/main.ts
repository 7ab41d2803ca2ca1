/**
 * The sandbox command (bin/sandbox.ts starts it): the stateful reference provider on its own, to watch
 * a complete live run on this machine. PIX_SANDBOX_HOST and PIX_SANDBOX_PORT choose where it listens (default 127.0.0.1:4020);
 * PIX_SANDBOX_TLS_CERT_FILE and PIX_SANDBOX_TLS_KEY_FILE make it serve https, and
 * PIX_SANDBOX_CLIENT_CA_FILE demand client certificates that CA signed (mutual TLS). PIX_SANDBOX_DELAY_MS
 * answers every request that many ms later, as a far-away environment would.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { SCENARIOS } from './scenarios.ts';
import { type RunningSandbox, type SandboxTls, startSandbox } from './server.ts';
import { WEBHOOK_SIGNING_SECRET } from './webhook.ts';

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
  const [cert, key, clientCa] = [pem('PIX_SANDBOX_TLS_CERT_FILE'), pem('PIX_SANDBOX_TLS_KEY_FILE'), pem('PIX_SANDBOX_CLIENT_CA_FILE')];
  if (cert === undefined && key === undefined && clientCa === undefined) return undefined;
  if (cert === undefined || key === undefined)
    fail('PIX_SANDBOX_TLS_CERT_FILE and PIX_SANDBOX_TLS_KEY_FILE: give both (PEM) to serve https; PIX_SANDBOX_CLIENT_CA_FILE needs them too.');
  try {
    createSecureContext({ cert, key, ...(clientCa === undefined ? {} : { ca: clientCa }) });
  } catch (error) {
    fail(`PIX_SANDBOX_TLS_CERT_FILE, PIX_SANDBOX_TLS_KEY_FILE, PIX_SANDBOX_CLIENT_CA_FILE: not usable for TLS (${(error as NodeJS.ErrnoException).code ?? 'refused by OpenSSL'}). Give a PEM certificate, the PEM key that belongs to it, and a PEM CA.`);
  }
  return { cert, key, ...(clientCa === undefined ? {} : { clientCa }) };
} // prettier-ignore

/**
 * Serves the sandbox until SIGINT or SIGTERM and prints the variables of a live run against it, with
 * the command that starts one where the user is (`certifyCommand`: the sandbox knows nothing of the suite).
 */
export async function serveSandbox(certifyCommand: string): Promise<void> {
  const host = setting('PIX_SANDBOX_HOST', '127.0.0.1');
  const portText = setting('PIX_SANDBOX_PORT', '4020');
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    fail(
      `PIX_SANDBOX_PORT: '${portText}' is not a port. Set a number from 0 to 65535, or unset it for 4020.`,
    );
  }

  const delayText = setting('PIX_SANDBOX_DELAY_MS', '0');
  const delayMs = Number(delayText);
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > 60_000) {
    fail(
      `PIX_SANDBOX_DELAY_MS: '${delayText}' is not a delay. Set a number of milliseconds from 0 to 60000, or unset it for none.`,
    );
  }

  const tls = tlsSettings();
  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox({
      host,
      port,
      log: (line) => process.stdout.write(`  ${line}\n`),
      delayMs,
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

  const nameWidth = Math.max(...SCENARIOS.map((s) => s.name.length));
  const scenarioLines = SCENARIOS.map((s) => {
    const kind = s.kind === 'profile' ? 'profile' : s.level;
    const extra = Object.entries(s.suiteEnv).map(([key, value]) => ` [needs ${key}=${value}]`);
    return `  ${kind.padEnd(7)}  ${s.name.padEnd(nameWidth)}  ${s.description}${extra.join('')}`;
  });

  process.stdout.write(
    [
      `Pix sandbox on ${sandbox.url}: the reference profile behind the bare paths, any scenario behind /s/<scenario>.`,
      ...(delayMs === 0 ? [] : [`Every request is answered ${delayMs} ms late (PIX_SANDBOX_DELAY_MS).`]),
      '',
      'Live run against the reference profile (paste in another terminal):',
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
      `Another scenario: PIX_BASE_URL=${sandbox.url}/s/<scenario>, plus the variables it needs.`,
      'A profile must get no FAILED check; a FAILED fault must fail the run, a WARNING fault must warn.',
      '',
      ...scenarioLines,
      '',
      `Webhooks go only to loopback PostBackUrls; the reference ones are signed (Standard Webhooks) with ${WEBHOOK_SIGNING_SECRET}.`,
      'Ctrl-C stops the sandbox.',
      '',
      '',
    ].join('\n'),
  );

  const stop = (): void => {
    void sandbox.close().then(() => {
      process.stdout.write('Sandbox stopped.\n');
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
