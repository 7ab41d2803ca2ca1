/**
 * Tells private key material apart from the public key cert_client carries (§2.2, §4.1), so that a
 * private key given by mistake stops the run before any request and is never registered, masked or
 * written anywhere: its bytes are read here, judged and dropped.
 */
import { createPrivateKey } from 'node:crypto';

/** What kind of private key a file or value holds, and the one command that gives its public key. */
export interface PrivateKeyForm {
  readonly form: string;
  readonly extract: string;
}

const PEM_PRIVATE = /-----BEGIN ((?:RSA |EC |DSA |ENCRYPTED |OPENSSH |ANY )?PRIVATE KEY)-----/;
const PUTTY_PRIVATE = /^PuTTY-User-Key-File-\d+:/m;
/** DER of PFX: SEQUENCE { INTEGER 3, ContentInfo { OID pkcs7-data or pkcs7-signedData … } }. */
const PKCS12_VERSION = Buffer.from([0x02, 0x01, 0x03, 0x30]);
const PKCS7_OID = Buffer.from([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07]);
/** JWK members that only a private key has (RFC 7518 §6.2.2, §6.3.2, §6.4). */
const JWK_PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

const FROM_PEM = 'openssl pkey -in <key file> -pubout -out client-public-key.pem';

function pemForm(text: string): PrivateKeyForm | undefined {
  const label = PEM_PRIVATE.exec(text)?.[1];
  if (label === undefined) return undefined;
  if (label === 'OPENSSH PRIVATE KEY')
    return {
      form: 'an OpenSSH private key',
      extract: 'ssh-keygen -e -m PKCS8 -f <key file> > client-public-key.pem',
    };
  return { form: `a PEM private key (${label})`, extract: FROM_PEM };
}

function jwkForm(text: string): PrivateKeyForm | undefined {
  if (!/^\s*[{[]/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const keys = (parsed as { keys?: unknown }).keys;
  const candidates: unknown[] = Array.isArray(parsed) ? parsed : Array.isArray(keys) ? keys : [parsed];
  const isPrivate = candidates.some(
    (key) => typeof key === 'object' && key !== null && JWK_PRIVATE_MEMBERS.some((member) => member in key),
  );
  return isPrivate
    ? {
        form: 'a private JWK (it has private members such as "d")',
        extract: 'remove the members d, p, q, dp, dq, qi (and k) and keep kty, n, e or crv, x, y',
      }
    : undefined;
}

function derForm(bytes: Buffer): PrivateKeyForm | undefined {
  if (bytes[0] !== 0x30) return undefined;
  const head = bytes.subarray(0, 32);
  if (head.includes(PKCS12_VERSION) && head.includes(PKCS7_OID))
    return {
      form: 'a PKCS#12 file (it holds the private key)',
      extract: 'openssl pkcs12 -in <file.p12> -nokeys | openssl x509 -pubkey -noout > client-public-key.pem',
    };
  for (const type of ['pkcs8', 'pkcs1', 'sec1'] as const) {
    try {
      createPrivateKey({ key: bytes, format: 'der', type });
      return {
        form: `a DER private key (${type.toUpperCase()})`,
        extract: 'openssl pkey -inform DER -in <key file> -pubout -out client-public-key.pem',
      };
    } catch {
      // Not this encoding; the next one may still read it.
    }
  }
  return undefined;
}

/** The private key form of these bytes, or undefined when they hold none that we recognise. */
export function privateKeyForm(bytes: Buffer): PrivateKeyForm | undefined {
  const text = bytes.toString('latin1');
  return (
    pemForm(text) ??
    (PUTTY_PRIVATE.test(text)
      ? { form: 'a PuTTY private key', extract: 'puttygen <key file> -O public-openssh' }
      : undefined) ??
    jwkForm(text) ??
    derForm(bytes)
  );
}

/** The same, for a value given as cert_client is sent (base64 of the key) or pasted as it is. */
export function privateKeyFormOfValue(value: string): PrivateKeyForm | undefined {
  return privateKeyForm(Buffer.from(value, 'latin1')) ?? privateKeyForm(Buffer.from(value, 'base64'));
}
