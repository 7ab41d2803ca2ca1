/**
 * Near-miss credentials (§5.4: a key "invalid" is refused): values one edit away from the real one,
 * which a provider comparing a prefix, a truncated column (VARCHAR(32), bcrypt's 72 bytes),
 * case-insensitively or after trimming white space takes for the real one, while a wholly wrong value
 * is refused by all of them.
 */
import { createPublicKey, generateKeyPair, type KeyObject, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';

export type NearMiss =
  | 'last-changed'
  | 'one-short'
  | 'one-more'
  | 'case-changed'
  | 'first-changed'
  | 'other-key'
  | 'space-before'
  | 'space-after';

/** Each near miss in a report's words. */
export const NEAR_MISS_WORDS: Record<NearMiss, string> = {
  'last-changed': 'the last character changed',
  'one-short': 'one character short',
  'one-more': 'one character more',
  'case-changed': 'the case changed',
  'first-changed': 'the first character changed',
  'other-key': 'another real public key of the same kind',
  'space-before': 'a no-break space (U+00A0) before it',
  'space-after': 'a no-break space (U+00A0) after it',
};

/**
 * The near misses only a compare that trims white space takes: lenient, but it takes a value that is
 * not the registered one, so accepting them is a WARNING where the other near misses FAIL.
 */
export const WHITE_SPACE_NEAR_MISSES: ReadonlySet<NearMiss> = new Set(['space-before', 'space-after']);

/**
 * The real value with a no-break space (U+00A0, sent as the byte 0xA0) before it, then after it:
 * JavaScript's trim() and Python's str.strip() remove it, HTTP does not. A space or a tab would prove
 * nothing: HTTP strips them around a field value (RFC 9110 §5.5), so every provider reads the real value.
 */
export function whiteSpaceNearMisses(value: string): NearMissValue[] {
  return [
    { variant: 'space-before', value: `\u00a0${value}` },
    { variant: 'space-after', value: `${value}\u00a0` },
  ];
}

export interface NearMissValue {
  readonly variant: NearMiss;
  readonly value: string;
}

const HEX = /^[0-9a-f-]+$|^[0-9A-F-]+$/;
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The characters a value is written in, so that a near miss keeps its shape: hex stays hex. */
function alphabetOf(value: string, char: string): string {
  if (HEX.test(value)) return /[A-F]/.test(value) ? '0123456789ABCDEF' : '0123456789abcdef';
  if (/[0-9]/.test(char)) return '0123456789';
  if (/[A-Z]/.test(char)) return 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return 'abcdefghijklmnopqrstuvwxyz';
}

/**
 * The near misses of a plain value, four, one edit each: three at its end (where prefix and
 * truncated compares stop looking), then its case swapped, or where case cannot matter its first
 * character changed (a compare of the last few characters). `encoded` names the base64 alphabet of
 * an encoded value (a key body, a JWT's signature): a character then moves 16 places, which changes
 * the bits it encodes rather than only the padding bits a decoder drops, and the character more goes
 * before the last, so that the bytes it decodes to differ where a parser reads them, not only past
 * their end (which a decoder or a DER parser may drop).
 */
export function plainNearMisses(value: string, encoded?: string): NearMissValue[] {
  const body = value.replace(/=+$/, '');
  const padding = value.slice(body.length);
  const last = body.at(-1);
  if (last === undefined) return [];
  const step = encoded === undefined ? 1 : 16;
  const changed = (char: string, by: number): string => {
    const alphabet = encoded ?? alphabetOf(body, char);
    const at = alphabet.indexOf(char);
    return alphabet[at < 0 ? 0 : (at + by) % alphabet.length] ?? 'x';
  };
  const swapped = swapCase(body);
  // Hex, UUIDs and e-mail addresses are conventionally read either way; a value without letters has no case.
  const caseMatters = swapped !== body && (encoded !== undefined || !(HEX.test(body) || body.includes('@')));
  const moreAt = encoded === undefined ? body.length : body.length - 1;
  return [
    { variant: 'last-changed', value: `${body.slice(0, -1)}${changed(last, step)}${padding}` },
    { variant: 'one-short', value: `${body.slice(0, -1)}${padding}` },
    {
      variant: 'one-more',
      value: `${body.slice(0, moreAt)}${changed(last, step)}${body.slice(moreAt)}${padding}`,
    },
    caseMatters
      ? { variant: 'case-changed', value: `${swapped}${padding}` }
      : { variant: 'first-changed', value: `${changed(body[0] ?? last, step)}${body.slice(1)}${padding}` },
  ];
}

/** A bearer token's near misses: a JWT's in its signature (its header and payload still parse). */
export function tokenNearMisses(token: string): NearMissValue[] {
  const parts = token.split('.');
  const signature = parts[2];
  if (parts.length !== 3 || signature === undefined || signature === '') return plainNearMisses(token);
  const signed = `${parts[0] ?? ''}.${parts[1] ?? ''}.`;
  return plainNearMisses(signature, BASE64URL).map((n) => ({ ...n, value: `${signed}${n.value}` }));
}

const PEM = /^(-----BEGIN ([A-Z ]+)-----\r?\n)([\s\S]*?)(\r?\n-----END [A-Z ]+-----\s*)$/;

/**
 * cert_client's near misses, in the key material: the last character of a public key's PEM body (or
 * of its DER's base64) edited, the armour kept, each sent as base64 as the header carries it. A
 * certificate ends in its signature, not its key: a provider reading the key out of it rightly takes
 * those edits, so it gets only its case changed, which changes every byte.
 */
export function certificateNearMisses(certClient: string): NearMissValue[] {
  const raw = Buffer.from(certClient, 'base64');
  const pem = PEM.exec(raw.toString('latin1'));
  if (pem === null) {
    const misses = plainNearMisses(certClient, BASE64);
    return isCertificate(raw) ? misses.filter((n) => n.variant === 'case-changed') : misses;
  }
  const [, begin = '', label = '', body = '', end = ''] = pem;
  const encoded = (text: string): string => Buffer.from(`${begin}${text}${end}`, 'latin1').toString('base64');
  if (!label.endsWith('PUBLIC KEY')) return [{ variant: 'case-changed', value: encoded(swapCase(body)) }];
  const lines = body.split(/(\r?\n)/);
  const lastLine = lines.pop() ?? '';
  const before = lines.join('');
  return plainNearMisses(lastLine, BASE64).map((n) => ({
    ...n,
    value: encoded(`${n.variant === 'case-changed' ? swapCase(before) : before}${n.value}`),
  }));
}

/** Whether DER bytes are an X.509 certificate. */
function isCertificate(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

function swapCase(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}

const generate = promisify(generateKeyPair);

/** The client's public key from cert_client (a PEM or DER public key), or undefined when it is neither. */
function publicKeyOf(certClient: string): { key: KeyObject; pem: boolean; pkcs1: boolean } | undefined {
  const raw = Buffer.from(certClient, 'base64');
  const text = raw.toString('latin1');
  try {
    if (text.includes('-----BEGIN')) {
      return { key: createPublicKey(text), pem: true, pkcs1: text.includes('BEGIN RSA PUBLIC KEY') };
    }
    return { key: createPublicKey({ key: raw, format: 'der', type: 'spki' }), pem: false, pkcs1: false };
  } catch {
    return undefined;
  }
}

/**
 * Another real public key of the client's kind (RSA of its size, EC on its curve, Ed25519 …), in the
 * same encoding: for RSA and EC its armour and the DER's first bytes are the client's, so a compare
 * of the header's first 72 characters (bcrypt's limit) takes it for the client's. Undefined when cert_client holds no public key the
 * suite can make another of (a certificate: it cannot issue one).
 */
export async function otherPublicKey(certClient: string): Promise<string | undefined> {
  const found = publicKeyOf(certClient);
  const type = found?.key.asymmetricKeyType;
  if (found === undefined || type === undefined) return undefined;
  const { modulusLength, namedCurve, publicExponent } = found.key.asymmetricKeyDetails ?? {};
  const options = {
    ...(modulusLength === undefined ? {} : { modulusLength }),
    ...(publicExponent === undefined ? {} : { publicExponent: Number(publicExponent) }),
    ...(namedCurve === undefined ? {} : { namedCurve }),
  };
  const make = generate as (t: string, o: object) => Promise<{ publicKey: KeyObject }>;
  const publicKey = await make(type, options).then(
    (pair) => pair.publicKey,
    () => undefined,
  );
  if (publicKey === undefined) return undefined;
  const encoding = found.pkcs1 ? ('pkcs1' as const) : ('spki' as const);
  const exported = found.pem
    ? Buffer.from(publicKey.export({ type: encoding, format: 'pem' }))
    : publicKey.export({ type: 'spki', format: 'der' });
  return exported.toString('base64');
}
