/**
 * Checks a report directory as the person who signs it off receives it: every artifact
 * certification.json lists must be there with the recorded size and SHA-256, and certification.sig,
 * when present, must be a valid signature over the exact bytes of certification.json by the key both
 * name (and by the expected key, when the signer pins one). Nothing is trusted before it is checked:
 * the signature is checked on the bytes before they are parsed, and the scheme follows from the key,
 * never from what the signature file claims.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { fingerprintOf, schemeOf, verifyBytes, type SignatureScheme } from '../secrets/signing.ts';
import { REPORT_FILES, SIGNATURE_FILE } from '../run/report-dir.ts';
import { sha256Of, type SignatureFile } from './integrity.ts';
import type { ArtifactDigest, Certification, Integrity, SignatureRecord } from './model.ts';
import { exitCodeOf as runExitCode, moneyFindings, overall, worst } from './build.ts';
import { checkedCertification, UnreadableCertification } from './read.ts';

/** changed: the report is not what was written or signed (exit 1); unreadable: it cannot be checked (exit 2). */
export interface Problem {
  readonly kind: 'changed' | 'unreadable';
  readonly line: string;
}

export interface Verification {
  readonly exitCode: 0 | 1 | 2;
  /** One line each, worst first. */
  readonly problems: readonly Problem[];
  /** What a valid result proves, and the files nothing vouches for. */
  readonly notes: readonly string[];
}

const JSON_FILE = REPORT_FILES.json;

const changed = (line: string): Problem => ({ kind: 'changed', line });
const unreadable = (line: string): Problem => ({ kind: 'unreadable', line });

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'unknown error';
}

/** The bytes of a file, undefined when it does not exist. */
function bytesOf(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

const HEX_FINGERPRINT = /^[0-9a-f]{64}$/;

/** A fingerprint as people copy it: any case, with `sha256:` or colons, or undefined when it is none. */
export function normalFingerprint(text: string): string | undefined {
  const hex = text
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, '')
    .replace(/:/g, '');
  return HEX_FINGERPRINT.test(hex) ? hex : undefined;
}

/** The public key of a PEM public key or certificate (or a private key, whose public half is taken). */
export function publicKeyOf(pem: string): KeyObject | undefined {
  try {
    return createPublicKey(pem);
  } catch {
    return undefined;
  }
}

/** certification.sig parsed, with its public key, or what makes it no signature file of this suite. */
function readSignatureFile(bytes: Buffer): { file: SignatureFile; key: KeyObject } | string {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  const fields = ['signs', 'algorithm', 'publicKeyFingerprint', 'publicKey', 'signature'] as const;
  const given = value as Partial<Record<(typeof fields)[number], unknown>> | null;
  const missing = fields.filter((field) => typeof given?.[field] !== 'string');
  if (missing.length > 0) return `lacks ${missing.join(', ')}`;
  if (given?.signs !== JSON_FILE) return `signs ${JSON.stringify(given?.signs)}, not ${JSON_FILE}`;
  const file = value as SignatureFile;
  const key = publicKeyOf(file.publicKey);
  return key === undefined ? 'holds a public key that cannot be read' : { file, key };
}

/** node's verify throws, rather than answer false, on some malformed signatures. */
function signatureHolds(scheme: SignatureScheme, key: KeyObject, bytes: Buffer, signature: string): boolean {
  try {
    return verifyBytes(scheme, key, bytes, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

interface SignatureCheck {
  readonly problems: Problem[];
  /** The key that made a valid signature. */
  readonly signer?: SignatureRecord;
}

/** The signature over certification.json's bytes, checked before anything trusts what they say. */
function checkSignature(bytes: Buffer, sigBytes: Buffer, pin: string | undefined): SignatureCheck {
  const read = readSignatureFile(sigBytes);
  if (typeof read === 'string')
    return { problems: [changed(`${SIGNATURE_FILE}: ${read}, so no signature this suite wrote`)] };
  const { file, key } = read;
  const fingerprint = fingerprintOf(key);
  const scheme = schemeOf(key);
  if ('refused' in scheme)
    return {
      problems: [changed(`${SIGNATURE_FILE}: holds ${scheme.refused}, which this suite never signs with`)],
    };
  const problems = [
    ...(fingerprint === file.publicKeyFingerprint
      ? []
      : [changed(`${SIGNATURE_FILE}: names key ${file.publicKeyFingerprint} but holds key ${fingerprint}`)]),
    ...(scheme.name === file.algorithm
      ? []
      : [changed(`${SIGNATURE_FILE}: names ${file.algorithm}, but its key signs with ${scheme.name}`)]),
    ...(signatureHolds(scheme, key, bytes, file.signature)
      ? []
      : [
          changed(
            `${JSON_FILE}: the signature in ${SIGNATURE_FILE} does not match it, so it changed since it was signed`,
          ),
        ]),
    ...(pin === undefined || fingerprint === pin
      ? []
      : [changed(`${SIGNATURE_FILE}: signed by key ${fingerprint}, not by the expected key ${pin}`)]),
  ];
  const signer = { file: SIGNATURE_FILE, algorithm: scheme.name, publicKeyFingerprint: fingerprint };
  return problems.length > 0 ? { problems } : { problems, signer };
}

/** A manifest path that stays inside the report directory, or undefined. */
function insidePath(dir: string, path: string): string | undefined {
  const relative = normalize(path);
  if (isAbsolute(relative) || relative === '..' || relative.startsWith(`..${sep}`)) return undefined;
  return join(dir, relative);
}

/** One listed artifact recomputed: there, a plain file, the recorded size and SHA-256. */
function artifactProblem(dir: string, { path, size, sha256 }: ArtifactDigest): Problem | undefined {
  const full = insidePath(dir, path);
  if (full === undefined) return changed(`${path}: listed in ${JSON_FILE}, but outside the report directory`);
  let actual: { size: number; sha256: string };
  try {
    const stat = lstatSync(full);
    if (!stat.isFile())
      return changed(
        `${path}: ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a file'}, where the run wrote a file`,
      );
    const bytes = readFileSync(full);
    actual = { size: bytes.length, sha256: sha256Of(bytes) };
  } catch (error) {
    return codeOf(error) === 'ENOENT'
      ? changed(`${path}: missing (${JSON_FILE} lists it, ${size} bytes)`)
      : unreadable(`${path}: cannot be read (${codeOf(error)})`);
  }
  if (actual.sha256 === sha256 && actual.size === size) return undefined;
  const sizes = actual.size === size ? `${size} bytes` : `${actual.size} bytes, ${size} recorded`;
  return changed(`${path}: changed since the run (sha256 ${actual.sha256}, ${sha256} recorded; ${sizes})`);
}

/** What certification.json says of its signature must agree with certification.sig. */
function signatureAgreement(
  recorded: SignatureRecord | undefined,
  present: boolean,
  signer: SignatureRecord | undefined,
): Problem[] {
  if (recorded === undefined)
    return present
      ? [changed(`${SIGNATURE_FILE}: ${JSON_FILE} records no signature, so the run did not write it`)]
      : [];
  if (!present)
    return [
      changed(
        `${SIGNATURE_FILE}: missing, but ${JSON_FILE} says key ${recorded.publicKeyFingerprint} signed it`,
      ),
    ];
  if (signer !== undefined && signer.publicKeyFingerprint !== recorded.publicKeyFingerprint)
    return [
      changed(
        `${SIGNATURE_FILE}: signed by key ${signer.publicKeyFingerprint}, but ${JSON_FILE} names key ${recorded.publicKeyFingerprint}`,
      ),
    ];
  return [];
}

/** Files of the directory no manifest entry covers: shown, since nothing vouches for them. */
function unlisted(dir: string, integrity: Integrity): string[] {
  const listed = new Set([JSON_FILE, SIGNATURE_FILE, ...integrity.artifacts.map((a) => normalize(a.path))]);
  return readdirSync(dir)
    .filter((name) => !listed.has(name))
    .sort()
    .map((name) => `${name}: not in ${JSON_FILE}'s manifest, so nothing vouches for it`);
}

function exitCodeOf(problems: readonly Problem[]): Verification['exitCode'] {
  if (problems.some((p) => p.kind === 'changed')) return 1;
  return problems.length > 0 ? 2 : 0;
}

function ended(problems: readonly Problem[], notes: readonly string[] = []): Verification {
  return { exitCode: exitCodeOf(problems), problems, notes };
}

function directoryProblem(dir: string): Problem | undefined {
  try {
    return statSync(dir).isDirectory() ? undefined : unreadable(`${dir}: not a directory`);
  } catch (error) {
    return unreadable(
      codeOf(error) === 'ENOENT' ? `${dir}: does not exist` : `${dir}: cannot be read (${codeOf(error)})`,
    );
  }
}

/**
 * What certification.json says of the run must follow from its own checks: in a matrix report each
 * check's verdict from its cells, the counts from the checks' verdicts, the verdict from the counts,
 * and the exit code from the verdict. An edited verdict that kept every hash right is caught here,
 * signed or not.
 */
function consistencyProblems(report: Certification): Problem[] {
  const counts = { PASSED: 0, FAILED: 0, WARNING: 0, SKIPPED: 0 };
  for (const check of report.checks) counts[check.verdict] += 1;
  const problems: Problem[] = [];
  const uncelled = report.checks
    .filter((c) => c.readings !== undefined && worst(c.readings.map((r) => r.verdict)) !== c.verdict)
    .map((c) => c.id);
  if (uncelled.length > 0)
    problems.push(
      changed(
        `${JSON_FILE}: the verdict of ${uncelled.join(', ')} is not the worst of its readings' verdicts`,
      ),
    );
  const miscounted = (Object.keys(counts) as (keyof typeof counts)[]).filter(
    (verdict) => counts[verdict] !== report.counts[verdict],
  );
  if (miscounted.length > 0)
    problems.push(
      changed(
        `${JSON_FILE}: its counts (${miscounted.map((v) => `${v} ${report.counts[v]}`).join(', ')}) disagree with its checks (${miscounted.map((v) => `${v} ${counts[v]}`).join(', ')})`,
      ),
    );
  const verdict = overall(counts, report.suiteErrors, report.incomplete);
  if (verdict !== report.verdict)
    problems.push(
      changed(
        `${JSON_FILE}: its verdict is ${report.verdict}, but its checks make it ${verdict} (${counts.FAILED} FAILED, ${counts.WARNING} WARNING, ${report.incomplete.length} causes of INCOMPLETE, ${report.suiteErrors.length} suite errors)`,
      ),
    );
  const exitCode = runExitCode(verdict, report.run, report.changes, report.checks);
  if (exitCode !== report.exitCode)
    problems.push(
      changed(
        `${JSON_FILE}: its exit code is ${report.exitCode}, but a ${verdict} run${report.run.strict ? ' with PIX_STRICT' : ''}${report.run.requireComplete ? ' with PIX_REQUIRE_COMPLETE' : ''}${moneyFindings(report.checks).length > 0 ? ' with findings that can cost money' : ''} exits ${exitCode}`,
      ),
    );
  return problems;
}

/** Parsed and checked against its schema; a problem is `changed` when a bad signature already says so. */
function reportOf(
  bytes: Buffer,
  signatureBroken: boolean,
): { report: Certification; integrity: Integrity } | Problem {
  const kind = signatureBroken ? changed : unreadable;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return kind(`${JSON_FILE}: not JSON (${(error as Error).message})`);
  }
  try {
    const report = checkedCertification(value, JSON_FILE);
    return report.integrity === undefined
      ? kind(
          `${JSON_FILE}: records no hashes of the other artifacts (schema version 2, from a suite that did not record them)`,
        )
      : { report, integrity: report.integrity };
  } catch (error) {
    if (error instanceof UnreadableCertification) return kind(`${JSON_FILE}: ${error.problem}`);
    throw error;
  }
}

function verdictNotes(count: number, signer: SignatureRecord | undefined, pinned: boolean): string[] {
  const matched = `${count} ${count === 1 ? 'artifact matches' : 'artifacts match'} ${JSON_FILE}`;
  if (signer === undefined)
    return [
      `${matched}, and its verdict, counts and exit code agree with its checks. It is not signed, so this proves only that the report agrees with itself: whoever can edit the report could have changed ${JSON_FILE} and the hashes in it together; a run with PIX_SIGNING_KEY_FILE signs it.`,
    ];
  const by = `${signer.algorithm}, key ${signer.publicKeyFingerprint}`;
  return pinned
    ? [`${matched}, and ${SIGNATURE_FILE} signs it with the expected key (${by}).`]
    : [
        `${matched}, and ${SIGNATURE_FILE} signs it (${by}).`,
        `This proves only that the report is unchanged since the holder of key ${signer.publicKeyFingerprint} signed it: pin the key you expect with --fingerprint or --public-key.`,
      ];
}

/**
 * Verifies a report directory; `pin`, a fingerprint (lowercase hex), is the key the signer expects.
 * Exit 0: valid; 1: an artifact changed or is missing, the signature is bad or by another key; 2: the
 * directory or its certification.json cannot be read.
 */
export function verifyReportDir(dir: string, pin?: string): Verification {
  const notADirectory = directoryProblem(dir);
  if (notADirectory !== undefined) return ended([notADirectory]);
  const bytes = bytesOf(join(dir, JSON_FILE));
  if (bytes === undefined)
    return ended([
      unreadable(
        `${JSON_FILE}: missing, so this is no report directory of a run, or the run wrote no certification`,
      ),
    ]);
  const sigBytes = bytesOf(join(dir, SIGNATURE_FILE));
  const signature =
    sigBytes === undefined
      ? {
          problems:
            pin === undefined
              ? []
              : [
                  changed(
                    `${SIGNATURE_FILE}: missing, so the report is not signed, and key ${pin} was expected`,
                  ),
                ],
        }
      : checkSignature(bytes, sigBytes, pin);
  const read = reportOf(bytes, signature.problems.length > 0);
  if ('kind' in read) return ended([...signature.problems, read]);
  const { report, integrity } = read;
  const problems = [
    ...signature.problems,
    // A broken signature already says certification.json changed: one root cause, one finding.
    ...(signature.problems.length > 0 ? [] : consistencyProblems(report)),
    ...signatureAgreement(integrity.signature, sigBytes !== undefined, signature.signer),
    ...integrity.artifacts.flatMap((artifact) => artifactProblem(dir, artifact) ?? []),
  ];
  const verdict =
    problems.length === 0
      ? verdictNotes(integrity.artifacts.length, signature.signer, pin !== undefined)
      : [];
  return ended(problems, [...verdict, ...unlisted(dir, integrity)]);
}
