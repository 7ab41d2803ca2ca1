/**
 * Throwaway TLS material for the self-tests, made with the system's openssl in a temporary directory
 * that is removed at once: self-signed certificates (valid now or long expired), certificate
 * authorities and the server and client certificates they sign, and PKCS#12 files.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { temporaryDir } from './temporary.ts';

export interface Certificate {
  /** PEM, for a server's or a client's `key`. */
  readonly key: string;
  /** PEM, for a server's or a client's `cert`; when self-signed, also for the other side's `ca`. */
  readonly cert: string;
}

export interface CertificateOptions {
  /** Host names and IP addresses it is valid for; the first is also its common name. */
  readonly names?: readonly string[];
  /** Valid only on 1 and 2 January 2020. */
  readonly expired?: boolean;
}

export interface IssueOptions {
  /** For a server: the host names and IP addresses it is valid for (CN = the first). */
  readonly names?: readonly string[];
  /** For a client: its subject, e.g. /O=Provider/CN=webhooks.provider.test, and clientAuth usage. */
  readonly client?: string;
}

/** A CA: its own certificate (PEM, what the other side trusts) and the certificates it signs. */
export interface Authority extends Certificate {
  issue(options: IssueOptions): Certificate;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** openssl ca is the only way to give explicit dates in OpenSSL 3.0; this is the least it needs. */
const CA_CONFIG = `[ca]
default_ca = throwaway
[throwaway]
database = index.txt
new_certs_dir = .
serial = serial
policy = any
default_md = sha256
copy_extensions = copy
[any]
commonName = supplied
`;

/** Runs `make` with an openssl in a fresh directory, which is removed afterwards. */
function withOpenssl<T>(
  make: (openssl: (...args: string[]) => void, file: (name: string) => string) => T,
): T {
  const dir = temporaryDir('pix-cert-');
  try {
    return make(
      (...args) => execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: 'ignore' }),
      (name) => join(dir, name),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const read = (path: string): string => readFileSync(path, 'utf8');

function altNames(names: readonly string[]): string {
  return names.map((n) => (isIP(n) === 0 ? `DNS:${n}` : `IP:${n}`)).join(',');
}

export function selfSigned(options: CertificateOptions = {}): Certificate {
  const names = options.names ?? ['localhost', '127.0.0.1'];
  const subject = ['-subj', `/CN=${names[0] ?? 'localhost'}`, '-addext', `subjectAltName=${altNames(names)}`];
  return withOpenssl((openssl, file) => {
    if (options.expired === true) {
      writeFileSync(file('ca.cnf'), CA_CONFIG);
      writeFileSync(file('index.txt'), '');
      writeFileSync(file('serial'), '01\n');
      openssl('req', '-new', ...EC_KEY, '-keyout', 'key.pem', '-out', 'csr.pem', ...subject);
      openssl(
        'ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'key.pem', '-in', 'csr.pem',
        '-out', 'cert.pem', '-notext', '-startdate', '20200101000000Z', '-enddate', '20200102000000Z',
      ); // prettier-ignore
    } else {
      openssl('req', '-x509', ...EC_KEY, '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', ...subject);
    }
    return { key: read(file('key.pem')), cert: read(file('cert.pem')) };
  });
}

/** A certificate authority named `name`, valid for two days, that signs server and client certificates. */
export function certificateAuthority(name: string): Authority {
  const ca = withOpenssl((openssl, file) => {
    openssl(
      'req', '-x509', ...EC_KEY, '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', '-subj', `/CN=${name}`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    ); // prettier-ignore
    return { key: read(file('key.pem')), cert: read(file('cert.pem')) };
  });
  const issue = ({ names = ['127.0.0.1'], client }: IssueOptions): Certificate =>
    withOpenssl((openssl, file) => {
      writeFileSync(file('ca.pem'), ca.cert);
      writeFileSync(file('ca.key'), ca.key, { mode: 0o600 });
      writeFileSync(
        file('extensions'),
        client === undefined
          ? `subjectAltName=${altNames(names)}\nextendedKeyUsage=serverAuth\n`
          : 'extendedKeyUsage=clientAuth\n',
      );
      openssl(
        'req',
        ...EC_KEY,
        '-keyout',
        'key.pem',
        '-out',
        'csr.pem',
        '-subj',
        client ?? `/CN=${names[0] ?? 'localhost'}`,
      );
      openssl(
        'x509', '-req', '-in', 'csr.pem', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
        '-out', 'cert.pem', '-days', '2', '-extfile', 'extensions',
      ); // prettier-ignore
      return { key: read(file('key.pem')), cert: read(file('cert.pem')) };
    });
  return { ...ca, issue };
}

/** The certificate and key in one PKCS#12 file protected by `passphrase` (AES, OpenSSL 3's default). */
export function pkcs12(certificate: Certificate, passphrase: string): Buffer {
  return withOpenssl((openssl, file) => {
    writeFileSync(file('cert.pem'), certificate.cert);
    writeFileSync(file('key.pem'), certificate.key, { mode: 0o600 });
    // From a file: on the command line it would show in the process list.
    writeFileSync(file('passphrase'), passphrase, { mode: 0o600 });
    openssl(
      'pkcs12',
      '-export',
      '-in',
      'cert.pem',
      '-inkey',
      'key.pem',
      '-out',
      'bundle.p12',
      '-passout',
      'file:passphrase',
    );
    return readFileSync(file('bundle.p12'));
  });
}

/** The key in encrypted PKCS#8 PEM (-----BEGIN ENCRYPTED PRIVATE KEY-----). */
export function encryptedKey(key: string, passphrase: string): string {
  return createPrivateKey(key)
    .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase })
    .toString();
}
