/**
 * The standalone receiver's configuration (npm run receiver): the PIX_RECEIVER_* variables, read from
 * the environment and .env and validated before it listens; a problem is one line naming the variable.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { MIN_TOKEN_LENGTH } from './control.ts';
import type { ReceiverTls } from './receiver.ts';
import { ConfigError } from '../config/errors.ts';
import { environmentWithDotEnv } from '../config/dotenv.ts';
import { VARIABLES } from '../config/variables.ts';

export interface ServiceSettings {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly dataDir: string;
  readonly tls: ReceiverTls | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_RECEIVER_PORT = 4030;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function file(env: Env, name: string): Buffer | undefined {
  const path = text(env, name);
  if (path === undefined) return undefined;
  if (!existsSync(path))
    throw new ConfigError(name, `'${path}' does not exist`, 'Give the path of a PEM file.');
  return readFileSync(path);
}

function port(env: Env): number {
  const value = text(env, 'PIX_RECEIVER_PORT');
  if (value === undefined) return DEFAULT_RECEIVER_PORT;
  const parsed = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed <= 65_535))
    throw new ConfigError(
      'PIX_RECEIVER_PORT',
      `is '${value}'`,
      `Use a port from 0 to 65535 (default ${DEFAULT_RECEIVER_PORT}).`,
    );
  return parsed;
}

function token(env: Env): string {
  const value = text(env, 'PIX_RECEIVER_TOKEN');
  const fix = `Generate one (e.g. openssl rand -base64 32), keep it in your secret store and give the suite the same value as PIX_WEBHOOK_RECEIVER_TOKEN.`;
  if (value === undefined)
    throw new ConfigError('PIX_RECEIVER_TOKEN', 'is not set; it protects the control API', fix);
  if (value.length < MIN_TOKEN_LENGTH)
    throw new ConfigError(
      'PIX_RECEIVER_TOKEN',
      `has ${value.length} characters, fewer than ${MIN_TOKEN_LENGTH}`,
      fix,
    );
  return value;
}

function requireClientCert(env: Env): boolean {
  const value = text(env, 'PIX_RECEIVER_REQUIRE_CLIENT_CERT') ?? '0';
  if (value !== '0' && value !== '1')
    throw new ConfigError(
      'PIX_RECEIVER_REQUIRE_CLIENT_CERT',
      `is '${value}'`,
      'Set it to 1 to refuse deliveries without a client certificate, or 0.',
    );
  return value === '1';
}

/** OpenSSL's verdict on PEM material, as a line naming the variable. */
function usable(name: string, load: () => unknown, fix: string): void {
  try {
    load();
  } catch (error) {
    throw new ConfigError(
      name,
      `is not usable for TLS (${error instanceof Error ? error.message : String(error)})`,
      fix,
    );
  }
}

function tls(env: Env): ReceiverTls | undefined {
  const cert = file(env, 'PIX_RECEIVER_TLS_CERT_FILE');
  const key = file(env, 'PIX_RECEIVER_TLS_KEY_FILE');
  const clientCa = file(env, 'PIX_RECEIVER_CLIENT_CA_FILE');
  const required = requireClientCert(env);
  if (required && clientCa === undefined)
    throw new ConfigError(
      'PIX_RECEIVER_REQUIRE_CLIENT_CERT',
      'is 1 but PIX_RECEIVER_CLIENT_CA_FILE is not set',
      'Give the CA file that signs the provider’s client certificates.',
    );
  if (cert === undefined && key === undefined) {
    if (clientCa !== undefined)
      throw new ConfigError(
        'PIX_RECEIVER_CLIENT_CA_FILE',
        'needs TLS',
        'Set PIX_RECEIVER_TLS_CERT_FILE and PIX_RECEIVER_TLS_KEY_FILE too: client certificates exist only in TLS.',
      );
    return undefined;
  }
  if (cert === undefined)
    throw new ConfigError(
      'PIX_RECEIVER_TLS_CERT_FILE',
      'is not set but PIX_RECEIVER_TLS_KEY_FILE is',
      'Give both, or neither.',
    );
  if (key === undefined)
    throw new ConfigError(
      'PIX_RECEIVER_TLS_KEY_FILE',
      'is not set but PIX_RECEIVER_TLS_CERT_FILE is',
      'Give both, or neither.',
    );
  usable(
    'PIX_RECEIVER_TLS_KEY_FILE',
    () => createSecureContext({ cert, key }),
    'Give a PEM certificate and the PEM private key that belongs to it.',
  );
  if (clientCa !== undefined)
    usable(
      'PIX_RECEIVER_CLIENT_CA_FILE',
      () => createSecureContext({ ca: clientCa }),
      'Give the PEM certificate of the CA.',
    );
  return { cert, key, clientCa, requireClientCert: required };
}

export function loadReceiverSettings(env: Env = environmentWithDotEnv()): ServiceSettings {
  const known = new Set<string>(VARIABLES);
  const unknown = Object.keys(env).find((name) => name.startsWith('PIX_RECEIVER_') && !known.has(name));
  if (unknown !== undefined)
    throw new ConfigError(
      unknown,
      'is not a variable of the receiver',
      `Check the spelling; the receiver reads ${VARIABLES.filter((v) => v.startsWith('PIX_RECEIVER_')).join(', ')}.`,
    );
  return {
    host: text(env, 'PIX_RECEIVER_HOST') ?? '127.0.0.1',
    port: port(env),
    token: token(env),
    dataDir: resolve(text(env, 'PIX_RECEIVER_DATA_DIR') ?? 'receiver-data'),
    tls: tls(env),
  };
}
