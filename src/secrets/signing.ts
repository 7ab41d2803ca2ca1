/**
 * The signature schemes the suite
 * signs and verifies with: Ed25519, ECDSA on P-256, P-384 or P-521 (DER signatures, as OpenSSL
 * writes them) and RSA of 2048 bits or more (PKCS#1 v1.5 with SHA-256). The scheme follows from the
 * key alone, so a signature file cannot talk a verifier into a weaker one.
 *
 * The key is read unencrypted: CI writes it from its secret store at run time, and a passphrase
 * would sit in the same store. A key is known by its fingerprint, the SHA-256 of its public key's
 * SubjectPublicKeyInfo (DER), which the signer computes from the public key they keep.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export interface SigningKey {
  /** The file as given, for messages; the report shows neither it nor the key. */
  readonly path: string;
  /** The key's PEM block as the file holds it: registered as a secret, never written. */
  readonly pem: string;
}

export interface SignatureScheme {
  /** As certification.sig names it: `Ed25519`, `ECDSA-P256-SHA256`, `RSA-PKCS1-SHA256`. */
  readonly name: string;
  /** The digest node's sign() takes; null for Ed25519, which hashes the message itself. */
  readonly digest: string | null;
}

const CURVES: Readonly<Record<string, SignatureScheme>> = {
  prime256v1: { name: 'ECDSA-P256-SHA256', digest: 'sha256' },
  secp384r1: { name: 'ECDSA-P384-SHA384', digest: 'sha384' },
  secp521r1: { name: 'ECDSA-P521-SHA512', digest: 'sha512' },
};

const MIN_RSA_BITS = 2048;

export const SUPPORTED = `an Ed25519, ECDSA (P-256, P-384 or P-521) or RSA (${MIN_RSA_BITS} bits or more) key`;

/** The scheme a key (private or public) signs with, or what kind of key it is when the suite refuses it. */
export function schemeOf(key: KeyObject): SignatureScheme | { readonly refused: string } {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return { name: 'Ed25519', digest: null };
    case 'ec': {
      const curve = details.namedCurve ?? 'an unnamed curve';
      return CURVES[curve] ?? { refused: `an ECDSA key on ${curve}` };
    }
    case 'rsa': {
      const bits = details.modulusLength ?? 0;
      return bits >= MIN_RSA_BITS
        ? { name: 'RSA-PKCS1-SHA256', digest: 'sha256' }
        : { refused: `a ${bits}-bit RSA key` };
    }
    default:
      return { refused: `an ${key.asymmetricKeyType ?? 'unknown'} key` };
  }
}

/** SHA-256 of the public key's SubjectPublicKeyInfo (DER), in lowercase hex. */
export function fingerprintOf(key: KeyObject): string {
  const spki = publicOf(key).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('hex');
}

/** The public key as the signer keeps it (PEM); it reveals nothing of the private one. */
export function publicPemOf(key: KeyObject): string {
  return publicOf(key).export({ type: 'spki', format: 'pem' }).toString();
}

/** node derives a public key from a private one, but refuses to from a public one. */
const publicOf = (key: KeyObject): KeyObject => (key.type === 'public' ? key : createPublicKey(key));

export function signBytes(scheme: SignatureScheme, privateKey: KeyObject, data: Buffer): Buffer {
  return sign(scheme.digest, data, { key: privateKey, dsaEncoding: 'der' });
}

export function verifyBytes(
  scheme: SignatureScheme,
  publicKey: KeyObject,
  data: Buffer,
  signature: Buffer,
): boolean {
  return verify(scheme.digest, data, { key: publicKey, dsaEncoding: 'der' }, signature);
}
