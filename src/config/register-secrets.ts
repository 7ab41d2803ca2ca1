/**
 * What the configuration holds that must never be written, registered as secrets before anything is
 * printed: credentials, URL user-info, the client certificate's private key and passphrase, and the
 * key that signs the report.
 */
import { registerSecret } from '../secrets/registry.ts';
import type { Config } from './config.ts';

/** The PEM text inside a base64 cert_client, if that is what it holds. */
function decodedPem(base64: string): string | undefined {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  return /-----BEGIN [^-]+-----/.test(text) ? text : undefined;
}

/** A PEM text whole, its body in one piece, and each body line, as each may be printed. */
function registerPem(pem: string): void {
  registerSecret(pem.trim());
  const body = pem
    .split(/\r?\n/)
    .filter((line) => line !== '' && !line.startsWith('-----') && !/^[\w-]+: /.test(line));
  registerSecret(body.join(''));
  for (const line of body) registerSecret(line);
}

/**
 * Registers what the configuration holds that must never be written: credentials, URL user-info, the
 * client certificate's private key (PEM or PKCS#12) and passphrase, and the key that signs the report.
 */
export function registerConfigSecrets(config: Config): void {
  registerSecret(config.clientSecret);
  registerSecret(config.webhook.receiverToken);
  registerSecret(config.certClient);
  const pem = decodedPem(config.certClient);
  if (pem !== undefined) registerPem(pem);
  const client = config.tls.client;
  if (client !== undefined) {
    registerSecret(client.passphrase);
    if ('key' in client) registerPem(client.key);
    else registerSecret(client.pfx.toString('base64'));
  }
  if (config.signingKey !== undefined) registerPem(config.signingKey.pem);
  if (config.baseUrl !== undefined) {
    const { username, password } = new URL(config.baseUrl);
    for (const part of [username, password].filter((p) => p !== '')) registerSecret(decoded(part));
  }
}

function decoded(component: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    return component;
  }
}
