/**
 * Reading the TLS files of the configuration, mutual TLS and private certificate authorities: PIX_TLS_CERT_FILE + PIX_TLS_KEY_FILE (PEM) or
 * PIX_TLS_PFX_FILE (PKCS#12), PIX_TLS_PASSPHRASE for an encrypted key or a PFX, and PIX_CA_FILE, a
 * private CA trusted beside the default ones. Every client the suite sends with takes them from here:
 * the HTTP client and the preflight get all of it, a remote receiver's control calls only the CA.
 *
 * Certificates are always verified: PIX_CA_FILE adds trust, it never takes verification away. No
 * message here ever quotes a file's contents, only its path and what is wrong with it.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import {
  collect,
  ENCRYPTED_KEY,
  fileProblem as problem,
  pemBlocks,
  readNamedFile as readFile,
} from './pem.ts';
import type { ConfigProblem } from './errors.ts';
import type { VariableName } from './variables.ts';

/** The client certificate, as node's TLS takes it. */
export type ClientCertificate =
  | { readonly cert: string; readonly key: string; readonly passphrase?: string }
  | { readonly pfx: Buffer; readonly passphrase?: string };

export interface TlsConfig {
  /** PIX_CA_FILE: certificates (PEM) trusted beside the default ones; undefined trusts the default ones only. */
  readonly privateCa: string | undefined;
  /** Presented to PIX_BASE_URL when it asks; undefined presents none. */
  readonly client: ClientCertificate | undefined;
}

export const NO_TLS: TlsConfig = { privateCa: undefined, client: undefined };

/** The variables' names, for the messages here and in the preflight. */
export const TLS_VARIABLES = {
  ca: 'PIX_CA_FILE',
  cert: 'PIX_TLS_CERT_FILE',
  key: 'PIX_TLS_KEY_FILE',
  pfx: 'PIX_TLS_PFX_FILE',
  passphrase: 'PIX_TLS_PASSPHRASE',
} as const satisfies Record<string, VariableName>;

const { ca: CA, cert: CERT, key: KEY, pfx: PFX, passphrase: PASSPHRASE } = TLS_VARIABLES;

/** The value of a variable, trimmed; undefined when unset or blank. */
type Text = (name: VariableName) => string | undefined;

/** How to give a client certificate, said in one place. */
export const CLIENT_CERT_FIX = `Set ${CERT} and ${KEY} (PEM), or ${PFX} and ${PASSPHRASE}, to the client certificate the provider issued you.`;

/** Every certificate of a PEM file, each parsed (a chain may follow the first one). */
function certificates(variable: VariableName, path: string, what: string): string {
  const text = readFile(variable, path, what).toString('utf8');
  const blocks = pemBlocks(text, /^CERTIFICATE$/);
  const fix = `Give ${what} in PEM (-----BEGIN CERTIFICATE-----)`;
  if (blocks.length === 0) {
    const key = pemBlocks(text, /PRIVATE KEY$/).length > 0;
    throw problem(variable, `'${path}' holds ${key ? 'a private key' : 'no PEM certificate'}`, `${fix}.`);
  }
  try {
    for (const block of blocks) new X509Certificate(block);
  } catch {
    throw problem(variable, `'${path}' holds a PEM certificate that cannot be read`, `${fix}, as issued.`);
  }
  return blocks.join('\n');
}

/** The key's PEM block, opened with the passphrase when it is encrypted. */
function privateKey(path: string, passphrase: string | undefined): string {
  const what = 'the private key of the client certificate (PEM)';
  const text = readFile(KEY, path, what).toString('utf8');
  const [block] = pemBlocks(text, /PRIVATE KEY$/);
  if (block === undefined)
    throw pemBlocks(text, /^CERTIFICATE$/).length > 0
      ? problem(KEY, `'${path}' holds a certificate, not a private key`, `Did you swap ${CERT} and ${KEY}?`)
      : problem(
          KEY,
          `'${path}' holds no PEM private key`,
          `Give ${what}: -----BEGIN PRIVATE KEY----- or its RSA or EC form.`,
        );
  if (ENCRYPTED_KEY.test(block) && passphrase === undefined)
    throw problem(
      PASSPHRASE,
      `is not set, but the key in ${KEY} is encrypted`,
      'Give the passphrase it was encrypted with (from your secret store).',
    );
  try {
    createPrivateKey(passphrase === undefined ? block : { key: block, passphrase });
  } catch (error) {
    // A wrong passphrase passes OpenSSL's padding check about once in 256 tries; the key then does not parse.
    const encrypted = passphrase !== undefined && ENCRYPTED_KEY.test(block);
    throw encrypted || (error as NodeJS.ErrnoException).code === 'ERR_OSSL_BAD_DECRYPT'
      ? problem(
          PASSPHRASE,
          `does not decrypt the key in ${KEY}`,
          'Give the passphrase the key was encrypted with.',
        )
      : problem(KEY, `'${path}' holds a private key that cannot be read`, `Give ${what}, unmodified.`);
  }
  return block;
}

/** A PKCS#12 file OpenSSL opens with the passphrase; its reasons for refusing one are told apart. */
function pkcs12(path: string, passphrase: string | undefined): Buffer {
  const bytes = readFile(PFX, path, 'the client certificate’s PKCS#12 file (.pfx, .p12)');
  const pemPair = `or give the certificate and key in PEM as ${CERT} and ${KEY}`;
  if (bytes.includes('-----BEGIN'))
    throw problem(PFX, `'${path}' is a PEM file, not PKCS#12`, `Give PEM files as ${CERT} and ${KEY}.`);
  try {
    createSecureContext({ pfx: bytes, ...(passphrase === undefined ? {} : { passphrase }) });
    return bytes;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (message.includes('mac verify failure'))
      throw passphrase === undefined
        ? problem(
            PASSPHRASE,
            `is not set, but ${PFX} is protected by one`,
            'Give its passphrase (from your secret store).',
          )
        : problem(PASSPHRASE, `does not open ${PFX}`, 'Give the passphrase the file was exported with.');
    throw code === 'ERR_CRYPTO_UNSUPPORTED_OPERATION'
      ? problem(
          PFX,
          `'${path}' is encrypted with an algorithm OpenSSL 3 no longer opens (RC2 or 3DES, from older tools)`,
          `Export it again with AES (openssl pkcs12 -export), ${pemPair}.`,
        )
      : problem(
          PFX,
          `'${path}' is not a PKCS#12 file`,
          `Give the .pfx or .p12 file the provider issued, ${pemPair}.`,
        );
  }
}

/** Why node's TLS refuses a client certificate it was given, in the words of the variables. */
export function describeClientCertificateError(error: unknown): {
  variable: VariableName;
  problem: string;
  fix: string;
} {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH')
    return {
      variable: KEY,
      problem: `does not match the certificate in ${CERT} (their public keys differ)`,
      fix: 'Give the private key that belongs to that certificate.',
    };
  if (code === 'ERR_OSSL_BAD_DECRYPT' || message.includes('mac verify failure'))
    return {
      variable: PASSPHRASE,
      problem: 'does not open the client certificate’s key',
      fix: 'Give the passphrase the key or the PFX was protected with.',
    };
  return {
    variable: CERT,
    problem: `the client certificate cannot be used (${code ?? 'refused by OpenSSL'})`,
    fix: CLIENT_CERT_FIX,
  };
}

/** A certificate and a key that each read well may still not belong together. */
function matchingPair(pair: ClientCertificate): ClientCertificate {
  try {
    createSecureContext(pair);
  } catch (error) {
    const { variable, problem: what, fix } = describeClientCertificateError(error);
    throw problem(variable, what, fix);
  }
  return pair;
}

function clientCertificate(
  problems: ConfigProblem[],
  text: Text,
  passphrase: string | undefined,
): ClientCertificate | undefined {
  const [certPath, keyPath, pfxPath] = [text(CERT), text(KEY), text(PFX)];
  const withPassphrase = passphrase === undefined ? {} : { passphrase };
  if (pfxPath !== undefined) {
    if (certPath !== undefined || keyPath !== undefined)
      throw problem(
        PFX,
        `is set together with ${certPath === undefined ? KEY : CERT}`,
        `Give the client certificate one way: ${CERT} and ${KEY} (PEM), or ${PFX} alone.`,
      );
    return { pfx: pkcs12(pfxPath, passphrase), ...withPassphrase };
  }
  if (certPath === undefined && keyPath === undefined) {
    if (passphrase !== undefined)
      throw problem(
        PASSPHRASE,
        `is set, but neither ${PFX} nor ${KEY} is`,
        `It opens an encrypted key or a PFX: give the file, or unset ${PASSPHRASE}.`,
      );
    return undefined;
  }
  if (keyPath === undefined)
    throw problem(
      KEY,
      `is not set, but ${CERT} is`,
      `Give the private key of the client certificate (PEM), or both in one file as ${PFX}.`,
    );
  if (certPath === undefined)
    throw problem(
      CERT,
      `is not set, but ${KEY} is`,
      `Give the client certificate (PEM) that key belongs to, or both in one file as ${PFX}.`,
    );
  // Both files are read, so that a problem with each is told at once.
  const cert = collect(problems, () => certificates(CERT, certPath, 'the client certificate'));
  const key = collect(problems, () => privateKey(keyPath, passphrase));
  return cert === undefined || key === undefined ? undefined : matchingPair({ cert, key, ...withPassphrase });
}

/**
 * Reads and checks PIX_CA_FILE and the client certificate, before any connection: files that do not
 * exist or are not PEM or PKCS#12, half a pair, both kinds at once, a wrong passphrase, a key that
 * does not match its certificate. Every problem is returned, one line each.
 */
export function readTlsConfig(
  text: Text,
  passphrase: string | undefined,
): { tls: TlsConfig; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const caPath = text(CA);
  const privateCa =
    caPath === undefined
      ? undefined
      : collect(problems, () => certificates(CA, caPath, 'the private certificate authority’s certificate'));
  const client = collect(problems, () => clientCertificate(problems, text, passphrase));
  return { tls: { privateCa, client }, problems };
}
