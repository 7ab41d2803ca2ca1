/**
 * What vouches for a report directory. certification.json is written last and records the size and
 * SHA-256 of every other artifact of the run, each hashed after it was written whole; with a signing
 * key (PIX_SIGNING_KEY_FILE), certification.sig then holds a detached signature over the exact bytes
 * of certification.json, so one signature covers the manifest and the verdict. certification.json
 * cannot hold its own hash: the signature is what vouches for it. npm run verify checks both
 * (verify.ts); this module writes them.
 */
import { createHash, createPrivateKey } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LEDGER_FILE } from '../run/ledger.ts';
import { fingerprintOf, publicPemOf, schemeOf, signBytes, type SigningKey } from '../secrets/signing.ts';
import { REPORT_FILES, SIGNATURE_FILE, writeAtomically } from '../run/report-dir.ts';
import type { ArtifactDigest, Certification, Integrity, SignatureRecord } from './model.ts';
import { jsonText } from '../base/visible.ts';

/**
 * The artifacts the manifest covers, when present: every file the suite writes into the report
 * directory but certification.json and its signature (the ledger, which earlier runs may have begun,
 * as it stands when the run ends).
 */
const HASHED_ARTIFACTS: readonly string[] = [
  REPORT_FILES.html,
  REPORT_FILES.markdown,
  REPORT_FILES.junit,
  LEDGER_FILE,
];

/**
 * certification.sig: what a signer needs to check the signature with no other file. It holds public
 * material only, and is written as made: masking could only break the signature.
 */
export interface SignatureFile extends Omit<SignatureRecord, 'file'> {
  /** The file whose exact bytes are signed. */
  readonly signs: typeof REPORT_FILES.json;
  /** The public key (SubjectPublicKeyInfo, PEM); its fingerprint is what a signer pins. */
  readonly publicKey: string;
  /** Base64; DER for ECDSA. */
  readonly signature: string;
}

export const sha256Of = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function digestOf(path: string, bytes: Buffer): ArtifactDigest {
  return { path, size: bytes.length, sha256: sha256Of(bytes) };
}

async function presentDigest(dir: string, name: string): Promise<ArtifactDigest | undefined> {
  try {
    return digestOf(name, await readFile(join(dir, name)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** What certification.json and certification.sig say of one signing key. */
function signer(key: SigningKey): { record: SignatureRecord; sign: (json: string) => SignatureFile } {
  const privateKey = createPrivateKey(key.pem);
  const scheme = schemeOf(privateKey);
  // The configuration refused such a key before the run: reaching here with one is a bug.
  if ('refused' in scheme) throw new Error(`the signing key is ${scheme.refused}`);
  const record = {
    file: SIGNATURE_FILE,
    algorithm: scheme.name,
    publicKeyFingerprint: fingerprintOf(privateKey),
  };
  return {
    record,
    sign: (json) => ({
      signs: REPORT_FILES.json,
      algorithm: record.algorithm,
      publicKeyFingerprint: record.publicKeyFingerprint,
      publicKey: publicPemOf(privateKey),
      signature: signBytes(scheme, privateKey, Buffer.from(json, 'utf8')).toString('base64'),
    }),
  };
}

/**
 * Writes certification.json with the manifest of the artifacts already in `dir`, then its signature
 * when there is a key. Both are made before either is written; an earlier run's signature goes first,
 * so an interrupted run never leaves one beside a certification it did not sign.
 */
export async function writeSealedCertification(
  dir: string,
  report: Certification,
  key: SigningKey | undefined,
): Promise<SignatureRecord | undefined> {
  const digests = await Promise.all(HASHED_ARTIFACTS.map((name) => presentDigest(dir, name)));
  const signing = key === undefined ? undefined : signer(key);
  const integrity: Integrity = {
    artifacts: digests.filter((digest) => digest !== undefined),
    ...(signing === undefined ? {} : { signature: signing.record }),
  };
  const json = jsonText({ ...report, integrity });
  const signature = signing === undefined ? undefined : jsonText(signing.sign(json));
  await rm(join(dir, SIGNATURE_FILE), { force: true });
  await writeAtomically(join(dir, REPORT_FILES.json), json);
  if (signature !== undefined) await writeAtomically(join(dir, SIGNATURE_FILE), signature);
  return signing?.record;
}
