/**
 * Whether a cert_client names the expected public key in another encoding than the one registered: §2.2 says
 * "the base64 encoding of the client certificate public key", which a client may read as the base64 of the PEM
 * file (what the simulator hands out) or of the key's DER (the PEM's own body, without its armour).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';

/** The DER (SubjectPublicKeyInfo) of each expected value met, so a run parses its namespace's key once. */
const expectedDer = new Map<string, Buffer | undefined>();

function derOf(key: KeyObject): Buffer | undefined {
  return key.type === 'public' ? key.export({ type: 'spki', format: 'der' }) : undefined;
}

/** The public key a cert_client's bytes hold, as PEM text or as DER; undefined when they hold none. */
function presentedDer(bytes: Buffer): Buffer | undefined {
  try {
    const pem = bytes.subarray(0, 11).toString('latin1') === '-----BEGIN ';
    return derOf(
      createPublicKey(pem ? bytes.toString('latin1') : { key: bytes, format: 'der', type: 'spki' }),
    );
  } catch {
    return undefined;
  }
}

export function sameKey(presented: string, expected: string): boolean {
  if (!expectedDer.has(expected)) expectedDer.set(expected, presentedDer(Buffer.from(expected, 'base64')));
  const want = expectedDer.get(expected);
  const got = presentedDer(Buffer.from(presented, 'base64'));
  return want !== undefined && got !== undefined && want.equals(got);
}
