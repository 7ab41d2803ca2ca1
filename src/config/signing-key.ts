/**
 * PIX_SIGNING_KEY_FILE, the key that signs the certification, read and checked with the rest of the
 * configuration (the schemes are secrets/signing.ts).
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { schemeOf, SUPPORTED, type SigningKey } from '../secrets/signing.ts';
import { ENCRYPTED_KEY, fileProblem, pemBlocks, readNamedFile } from './pem.ts';
import type { VariableName } from './variables.ts';
import { suiteCommand } from '../base/invocation.ts';

export const SIGNING_KEY_VARIABLE = 'PIX_SIGNING_KEY_FILE' satisfies VariableName;

const WHAT = `the PEM private key that signs the certification (${SUPPORTED.slice(3)})`;

/**
 * Reads and checks PIX_SIGNING_KEY_FILE before anything is sent: a missing or unreadable file, a
 * public key or certificate where the private key belongs, an encrypted key, one that does not parse,
 * a kind of key the suite does not sign with. Throws a FileProblem naming the variable and the path.
 */
export function readSigningKey(path: string): SigningKey {
  const text = readNamedFile(SIGNING_KEY_VARIABLE, path, WHAT).toString('utf8');
  const [pem] = pemBlocks(text, /PRIVATE KEY$/);
  if (pem === undefined)
    throw pemBlocks(text, /PUBLIC KEY$|^CERTIFICATE$/).length > 0
      ? fileProblem(
          SIGNING_KEY_VARIABLE,
          `'${path}' holds a public key or a certificate, not the private key`,
          `Give the private key; the signer keeps the public one to verify with (${suiteCommand('verify', '<report dir> --public-key <file>')}).`,
        )
      : fileProblem(
          SIGNING_KEY_VARIABLE,
          `'${path}' holds no PEM private key`,
          `Give ${WHAT}: -----BEGIN PRIVATE KEY----- or its EC or RSA form.`,
        );
  if (ENCRYPTED_KEY.test(pem))
    throw fileProblem(
      SIGNING_KEY_VARIABLE,
      `'${path}' holds an encrypted key`,
      'The suite signs with an unencrypted key: have CI write it from the secret store at run time, into a file only the job can read (openssl pkey -in encrypted.pem -out signing.pem decrypts one).',
    );
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw fileProblem(
      SIGNING_KEY_VARIABLE,
      `'${path}' holds a private key that cannot be read`,
      `Give ${WHAT}, unmodified.`,
    );
  }
  const scheme = schemeOf(key);
  if ('refused' in scheme)
    throw fileProblem(
      SIGNING_KEY_VARIABLE,
      `'${path}' holds ${scheme.refused}`,
      `Give ${SUPPORTED}, e.g. one made by openssl genpkey -algorithm ed25519 -out signing.pem.`,
    );
  return { path, pem };
}
