/**
 * Throwaway TLS certificates for the self-tests, made with the system's openssl in a temporary directory
 * that is removed at once: self-signed, for the host names given, valid now or long expired.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Certificate {
  /** PEM, for a server's `key`. */
  readonly key: string;
  /** PEM, for a server's `cert` and, since it is self-signed, for a client's `ca`. */
  readonly cert: string;
}

export interface CertificateOptions {
  /** Host names and IP addresses it is valid for; the first is also its common name. */
  readonly names?: readonly string[];
  /** Valid only on 1 and 2 January 2020. */
  readonly expired?: boolean;
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

export function selfSigned(options: CertificateOptions = {}): Certificate {
  const names = options.names ?? ['localhost', '127.0.0.1'];
  const altNames = names.map((n) => (isIP(n) === 0 ? `DNS:${n}` : `IP:${n}`)).join(',');
  const subject = ['-subj', `/CN=${names[0] ?? 'localhost'}`, '-addext', `subjectAltName=${altNames}`];
  const dir = mkdtempSync(join(tmpdir(), 'pix-cert-'));
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  try {
    if (options.expired === true) {
      writeFileSync(join(dir, 'ca.cnf'), CA_CONFIG);
      writeFileSync(join(dir, 'index.txt'), '');
      writeFileSync(join(dir, 'serial'), '01\n');
      openssl('req', '-new', ...EC_KEY, '-keyout', 'key.pem', '-out', 'csr.pem', ...subject);
      openssl(
        'ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'key.pem', '-in', 'csr.pem',
        '-out', 'cert.pem', '-notext', '-startdate', '20200101000000Z', '-enddate', '20200102000000Z',
      ); // prettier-ignore
    } else {
      openssl('req', '-x509', ...EC_KEY, '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', ...subject);
    }
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
