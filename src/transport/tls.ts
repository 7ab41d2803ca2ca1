/**
 * The TLS settings every client the suite sends with takes, built from the configuration's TLS files
 * (config/tls-files.ts): the HTTP client and the preflight get all of them, a remote receiver's
 * control calls only the CA. Certificates are always verified: a private CA adds trust, it never
 * takes verification away.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type ConnectionOptions, type SecureContext } from 'node:tls';
import type { TlsConfig } from '../config/tls-files.ts';

/** TLS settings of the connection beyond the system's trust store (a private CA, a client certificate). */
export type TlsSettings = Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase'>;

/** What node trusts by default, NODE_EXTRA_CA_CERTS included, which a `ca` option would otherwise replace. */
function defaultTrust(): string[] {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra === undefined || extra === '') return [...rootCertificates];
  try {
    return [...rootCertificates, readFileSync(extra, 'utf8')];
  } catch {
    // Node has already warned at start-up that it could not read it.
    return [...rootCertificates];
  }
}

function trust(tls: TlsConfig): TlsSettings {
  return tls.privateCa === undefined ? {} : { ca: [...defaultTrust(), tls.privateCa] };
}

/** For PIX_BASE_URL: the private CA and the client certificate. */
export function apiTls(tls: TlsConfig): TlsSettings {
  return { ...trust(tls), ...tls.client };
}

/** For a remote webhook receiver's control API: the private CA only (the client certificate is the API's). */
export function receiverTls(tls: TlsConfig): TlsSettings {
  return trust(tls);
}

/** Whether the settings present a client certificate. */
export function presentsCertificate(settings: TlsSettings): boolean {
  return settings.cert !== undefined || settings.pfx !== undefined;
}

/**
 * One secure context for every connection of a client: parsing the default trust store takes tens of
 * milliseconds, too much to repeat per connection. Undefined when the settings change nothing.
 */
export function secureContextOf(settings: TlsSettings): SecureContext | undefined {
  return Object.keys(settings).length === 0 ? undefined : createSecureContext(settings);
}
