/**
 * Signed, verifiable reports, tried as the person who signs them off would: one real certify run
 * against the embedded mock signs its report with a key made here (ECDSA P-256), and npm run verify
 * finds it valid, pinned to that key or not. Copies of the report are then tampered with, one change
 * each: a changed byte in any artifact, a deleted one, a forger who also updates the hash, a report
 * signed again with another key (Ed25519, RSA); each gives exit 1 with a line naming the file, and a
 * directory that is not a report gives 2. The key is checked with the configuration, and neither it
 * nor a line of its PEM body reaches any file of the report or the console.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { main } from '../bin/verify.ts';
import { writeSealedCertification, type SignatureFile } from '../src/report/integrity.ts';
import type { ArtifactDigest, Certification, SignatureRecord } from '../src/report/model.ts';
import { normalFingerprint, publicKeyOf, verifyReportDir, type Verification } from '../src/report/verify.ts';
import type { SigningKey } from '../src/secrets/signing.ts';
import { certification } from './support/certification.ts';
import { certificationValidator } from '../src/report/read.ts';
import { loadConfig } from '../src/config/config.ts';
import { redact } from '../src/secrets/redact.ts';
import { encryptedKey } from './support/certificates.ts';
import { leaksOf } from './support/leaks.ts';
import {
  assertStoppedBeforeTheRun,
  runSuite,
  stopLines,
  TYPESCRIPT_LOADER,
  type SuiteRun,
} from './support/run-suite.ts';
import { IN_PROCESS_ONLY } from './support/in-process.ts';
import { ConfigError } from '../src/config/errors.ts';
import { registerConfigSecrets } from '../src/config/register-secrets.ts';
import { readSigningKey } from '../src/config/signing-key.ts';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');

interface KeyPair {
  readonly privatePem: string;
  readonly publicPem: string;
  /** SHA-256 of the public key's SubjectPublicKeyInfo (DER), computed here, not by the suite. */
  readonly fingerprint: string;
}

function keyPair(make: () => { privateKey: KeyObject; publicKey: KeyObject }): KeyPair {
  const { privateKey, publicKey } = make();
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprint: createHash('sha256').update(der).digest('hex'),
  };
}

const KEYS = {
  ecdsa: keyPair(() => generateKeyPairSync('ec', { namedCurve: 'P-256' })),
  ed25519: keyPair(() => generateKeyPairSync('ed25519')),
  rsa: keyPair(() => generateKeyPairSync('rsa', { modulusLength: 2048 })),
};

/** The lines of a PEM body long enough not to turn up by chance, and the body in one piece. */
function pemSecrets(pem: string): string[] {
  const body = pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
  return [body.join(''), ...body].filter((secret) => secret.length >= 16);
}

interface Verified {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** bin/verify.ts's main, in this process: what `npm run verify -- <args>` prints and exits with. */
function verify(...args: string[]): Verified {
  let out = '';
  let err = '';
  const code = main(
    args,
    (text) => (out += text),
    (text) => (err += text),
  );
  return { code, out, err };
}

/** The certification a report directory holds; sealing it again replaces its integrity record. */
const recorded = (dir: string): Certification =>
  JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8')) as Certification;

const validate = certificationValidator();

function problemLines(result: Verified): string[] {
  return result.out.split('\n').filter((line) => line !== '' && !/^Not valid/.test(line));
}

describe('a signed report, verified as its signer would (npm run verify)', { skip: IN_PROCESS_ONLY }, () => {
  const work = temporaryDir('pix-verify-');
  const file = (name: string, contents: string): string => {
    const path = join(work, name);
    writeFileSync(path, contents, { mode: 0o600 });
    return path;
  };
  const keyFile = file('signing-key.pem', KEYS.ecdsa.privatePem);
  let run: SuiteRun;
  let copies = 0;
  /** A copy of the run's report directory, to change without touching the original. */
  const copy = (): string => {
    const dir = join(work, `copy-${++copies}`);
    cpSync(run.reportDir, dir, { recursive: true });
    return dir;
  };

  before(async () => {
    run = await runSuite({ PIX_SIGNING_KEY_FILE: keyFile });
    assert.equal(run.code, 0, run.stdout.slice(-2000) + run.stderr);
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(run.reportDir, { recursive: true, force: true });
  });

  it('lists every other artifact in certification.json with its size and SHA-256, and signs it with the key it names', () => {
    const report = run.report as unknown as Certification;
    assert.ok(validate(report), JSON.stringify(validate.errors));
    assert.equal(report.schemaVersion, 5);
    const artifacts = report.integrity?.artifacts ?? [];
    assert.deepEqual(artifacts.map((a) => a.path).sort(), [
      'certification.html',
      'junit.xml',
      'ledger.jsonl',
      'summary.md',
    ]);
    for (const { path, size, sha256 } of artifacts) {
      const bytes = readFileSync(join(run.reportDir, path));
      assert.equal(size, bytes.length, path);
      assert.equal(sha256, createHash('sha256').update(bytes).digest('hex'), path);
    }
    assert.deepEqual(report.integrity?.signature, {
      file: 'certification.sig',
      algorithm: 'ECDSA-P256-SHA256',
      publicKeyFingerprint: KEYS.ecdsa.fingerprint,
    });
    const signature = JSON.parse(
      readFileSync(join(run.reportDir, 'certification.sig'), 'utf8'),
    ) as SignatureFile;
    assert.equal(signature.signs, 'certification.json');
    assert.equal(signature.publicKey, KEYS.ecdsa.publicPem);
    assert.match(
      run.stdout,
      new RegExp(
        `^Signed: .*certification\\.sig \\(ECDSA-P256-SHA256, key ${KEYS.ecdsa.fingerprint}\\); npm run verify -- `,
        'm',
      ),
    );
  });

  it('writes neither the key nor a line of its PEM body to any file of the report or to the console', () => {
    assert.deepEqual(leaksOf(run, pemSecrets(KEYS.ecdsa.privatePem)), []);
  });

  it('is valid untouched (npm run verify, exit 0), and says what an unpinned signature proves', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', TYPESCRIPT_LOADER, join(ROOT, 'bin', 'verify.ts'), run.reportDir],
      { cwd: ROOT },
    );
    assert.match(
      stdout,
      /^4 artifacts match certification\.json, and certification\.sig signs it \(ECDSA-P256-SHA256/m,
    );
    assert.match(
      stdout,
      new RegExp(
        `only that the report is unchanged since the holder of key ${KEYS.ecdsa.fingerprint} signed it`,
      ),
    );
    assert.match(stdout, /^Valid: /m);
  });

  it('is valid pinned to the signing key, by fingerprint (as people copy it) or by public key; exit 1 for another key', () => {
    const colons = KEYS.ecdsa.fingerprint.toUpperCase().replace(/(..)(?!$)/g, '$1:');
    for (const pin of [['--fingerprint', colons], ['--public-key', file('signer.pem', KEYS.ecdsa.publicPem)]]) {
      const result = verify(run.reportDir, ...pin);
      assert.equal(result.code, 0, result.out);
      assert.match(result.out, /signs it with the expected key/);
    }
    for (const pin of [['--fingerprint', KEYS.ed25519.fingerprint], ['--public-key', file('other.pem', KEYS.rsa.publicPem)]]) {
      const result = verify(run.reportDir, ...pin);
      assert.equal(result.code, 1, result.out);
      assert.deepEqual(problemLines(result), [
        `certification.sig: signed by key ${KEYS.ecdsa.fingerprint}, not by the expected key ${pin[0] === '--fingerprint' ? KEYS.ed25519.fingerprint : KEYS.rsa.fingerprint}`,
      ]);
    }
  }); // prettier-ignore

  for (const name of ['certification.html', 'junit.xml', 'summary.md', 'ledger.jsonl', 'certification.json'])
    it(`gives exit 1 for one changed byte in ${name}, in one line naming it`, () => {
      const dir = copy();
      const path = join(dir, name);
      const bytes = readFileSync(path);
      const middle = Math.floor(bytes.length / 2);
      bytes[middle] = (bytes[middle] ?? 0) ^ 0x01;
      writeFileSync(path, bytes);
      const result = verify(dir);
      assert.equal(result.code, 1, result.out);
      const [line, ...more] = problemLines(result);
      assert.match(
        line ?? '',
        name === 'certification.json'
          ? /^certification\.json: the signature in certification\.sig does not match it, so it changed since it was signed$/
          : new RegExp(`^${name.replace('.', '\\.')}: changed since the run \\(sha256 [0-9a-f]{64}, [0-9a-f]{64} recorded; \\d+ bytes\\)$`),
      );
      // A flipped byte in certification.json may also leave it no longer JSON, or JSON that is no longer a
      // certification (a field name changed): that is said too, never instead.
      for (const other of more) assert.match(other, /^certification\.json: (not JSON|is not a valid certification)/);
    }); // prettier-ignore

  it('gives exit 1 for a deleted artifact, and for a deleted signature that certification.json says was made', () => {
    const dir = copy();
    rmSync(join(dir, 'junit.xml'));
    const deleted = verify(dir);
    assert.equal(deleted.code, 1);
    assert.match(
      problemLines(deleted)[0] ?? '',
      /^junit\.xml: missing \(certification\.json lists it, \d+ bytes\)$/,
    );
    rmSync(join(dir, 'certification.sig'));
    const unsigned = verify(dir);
    assert.equal(unsigned.code, 1);
    assert.ok(
      problemLines(unsigned).includes(
        `certification.sig: missing, but certification.json says key ${KEYS.ecdsa.fingerprint} signed it`,
      ),
      unsigned.out,
    );
  });

  it('catches a forger who changes the verdict and keeps every hash right: the signature no longer matches', () => {
    const dir = copy();
    const path = join(dir, 'certification.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/"verdict": "INCOMPLETE"/, '"verdict": "PASSED"'));
    const result = verify(dir);
    assert.equal(result.code, 1);
    assert.deepEqual(problemLines(result), [
      'certification.json: the signature in certification.sig does not match it, so it changed since it was signed',
    ]);
  });

  it('finds a report signed again with another key (Ed25519, RSA) valid only unpinned, and names that key', async () => {
    for (const [name, key, algorithm] of [
      ['ed25519', KEYS.ed25519, 'Ed25519'],
      ['rsa', KEYS.rsa, 'RSA-PKCS1-SHA256'],
    ] as const) {
      const dir = copy();
      const report = recorded(dir);
      await writeSealedCertification(dir, report, readSigningKey(file(`${name}.pem`, key.privatePem)));
      const unpinned = verify(dir);
      assert.equal(unpinned.code, 0, unpinned.out);
      assert.match(unpinned.out, new RegExp(`signs it \\(${algorithm}, key ${key.fingerprint}\\)`));
      assert.match(unpinned.out, new RegExp(`since the holder of key ${key.fingerprint} signed it`));
      assert.ok(validate(recorded(dir)), JSON.stringify(validate.errors));
      assert.equal(verify(dir, '--public-key', file(`${name}.pub`, key.publicPem)).code, 0);
      assert.equal(verify(dir, '--fingerprint', KEYS.ecdsa.fingerprint).code, 1);
    }
  });

  it('rewritten unsigned, drops the stale signature and says the hashes alone prove little', async () => {
    const dir = copy();
    const report = recorded(dir);
    await writeSealedCertification(dir, report, undefined);
    const result = verify(dir);
    assert.equal(result.code, 0, result.out);
    assert.match(
      result.out,
      /It is not signed, so this proves only that the report agrees with itself: whoever can edit the report could have changed certification\.json/,
    );
    assert.equal(verify(dir, '--fingerprint', KEYS.ecdsa.fingerprint).code, 1);
  });

  it('names a file the manifest does not list, without failing for it', () => {
    const dir = copy();
    writeFileSync(join(dir, 'notes.txt'), 'added later');
    const result = verify(dir);
    assert.equal(result.code, 0, result.out);
    assert.match(
      result.out,
      /^notes\.txt: not in certification\.json's manifest, so nothing vouches for it$/m,
    );
  });

  it('gives exit 2 for a directory it cannot read as a report: missing, without certification.json, not JSON', () => {
    assert.deepEqual(verify(join(work, 'nowhere')), {
      code: 2,
      out: `${join(work, 'nowhere')}: does not exist\nNot valid (exit 2): ${join(work, 'nowhere')}, 1 problem\n`,
      err: '',
    });
    const dir = copy();
    rmSync(join(dir, 'certification.sig'));
    writeFileSync(join(dir, 'certification.json'), '{"schemaVersion": 3,');
    assert.equal(verify(dir).code, 2);
    assert.match(verify(dir).out, /^certification\.json: not JSON/);
    rmSync(join(dir, 'certification.json'));
    assert.equal(verify(dir).code, 2);
    assert.match(verify(dir).out, /^certification\.json: missing/);
  });

  it('prints its usage with --help (exit 0) and stops a wrong command line with exit 2 on stderr', () => {
    const help = verify('--help');
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: npm run verify -- <report dir>/);
    const wrong = verify(run.reportDir, '--fingerprint', 'abc');
    assert.equal(wrong.code, 2);
    assert.match(wrong.err, /^pix-certify verify: --fingerprint: 'abc' is not a SHA-256 fingerprint/);
  });
});

describe('PIX_SIGNING_KEY_FILE is checked with the configuration', () => {
  const work = temporaryDir('pix-signing-key-');
  after(() => rmSync(work, { recursive: true, force: true }));
  const file = (name: string, contents: string): string => {
    const path = join(work, name);
    writeFileSync(path, contents, { mode: 0o600 });
    return path;
  };
  const PASSPHRASE = 'selftest-signing-passphrase';

  /** The one line the configuration refuses the file with. */
  function refusal(path: string): string {
    try {
      loadConfig({ PIX_SIGNING_KEY_FILE: path });
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 1, error.message);
      assert.equal(error.variable, 'PIX_SIGNING_KEY_FILE');
      return error.message;
    }
    assert.fail(`${path} was accepted`);
  }

  it('accepts an Ed25519, ECDSA or RSA key in PEM, PKCS#8 or the traditional EC and RSA forms', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    for (const [name, pem] of [
      ['ed25519.pem', KEYS.ed25519.privatePem],
      ['p384-sec1.pem', ec.export({ type: 'sec1', format: 'pem' }).toString()],
      ['rsa-pkcs1.pem', rsa.export({ type: 'pkcs1', format: 'pem' }).toString()],
    ] as const)
      assert.equal(loadConfig({ PIX_SIGNING_KEY_FILE: file(name, pem) }).signingKey?.pem, pem.trim(), name);
  });

  it('refuses each mistake in one line naming the variable and the path, never the contents', () => {
    const cases: [string, string, RegExp][] = [
      ['missing.pem', '', /'.*missing\.pem' does not exist\. Give the path of the PEM private key/],
      ['public.pem', KEYS.ed25519.publicPem, /holds a public key or a certificate, not the private key/],
      ['encrypted.pem', encryptedKey(KEYS.ed25519.privatePem, PASSPHRASE), /holds an encrypted key\. The suite signs with an unencrypted key/],
      ['ed448.pem', generateKeyPairSync('ed448').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), /holds an ed448 key\. Give an Ed25519, ECDSA/],
      ['rsa1024.pem', generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), /holds a 1024-bit RSA key/],
      ['secp256k1.pem', generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), /holds an ECDSA key on secp256k1/],
      ['garbled.pem', '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5IGF0IGFsbA==\n-----END PRIVATE KEY-----\n', /holds a private key that cannot be read/],
    ];
    for (const [name, contents, expected] of cases) {
      const path = name === 'missing.pem' ? join(work, name) : file(name, contents);
      const line = refusal(path);
      assert.match(line, new RegExp(`^PIX_SIGNING_KEY_FILE: '${path.replace(/[.]/g, '\\.')}'`), name);
      assert.match(line, expected, name);
      assert.ok(!line.includes('\n'), name);
      for (const secret of pemSecrets(contents)) assert.ok(!line.includes(secret), `${name} quotes the file`);
    }
  }); // prettier-ignore

  it('registers the key as a secret: its PEM and each line of its body are masked wherever they would be written', () => {
    registerConfigSecrets(loadConfig({ PIX_SIGNING_KEY_FILE: file('masked.pem', KEYS.rsa.privatePem) }));
    const secrets = pemSecrets(KEYS.rsa.privatePem);
    const out = redact(`${KEYS.rsa.privatePem} ${JSON.stringify(KEYS.rsa.privatePem)} ${secrets.join(' ')}`);
    for (const secret of secrets) assert.ok(!out.includes(secret), out);
  });

  it('stops npm run certify with exit 2 and that one line, before the run', async () => {
    const run = await runSuite({ PIX_SIGNING_KEY_FILE: join(work, 'absent.pem') });
    assertStoppedBeforeTheRun(run);
    const [line, ...more] = stopLines(run);
    assert.deepEqual(more, []);
    assert.match(line ?? '', /^PIX_SIGNING_KEY_FILE: '.*absent\.pem' does not exist\./);
  });
});

/**
 * verifyReportDir in this process, on report directories made here (the artifacts written by hand,
 * certification.json sealed by writeSealedCertification or forged line by line): each finding to
 * the word, its kind, the exit code, and what a valid result says.
 */
describe('verifyReportDir, on report directories made here', () => {
  const work = temporaryDir('pix-verify-dir-');
  after(() => rmSync(work, { recursive: true, force: true }));
  let dirs = 0;
  const ARTIFACTS = {
    'certification.html': '<!doctype html><p>report</p>\n',
    'summary.md': '# Summary\n',
    'junit.xml': '<testsuites/>\n',
    'ledger.jsonl': '{"code":"c-1"}\n',
  };
  const signingKey = (pair: KeyPair): SigningKey => ({ path: 'signing.pem', pem: pair.privatePem });
  const report = (): Certification => ({ ...certification(), schemaVersion: 4 });

  /** A report directory with the four artifacts, sealed (and signed with `key`). */
  async function sealed(key?: KeyPair, files: Readonly<Record<string, string>> = ARTIFACTS): Promise<string> {
    const dir = join(work, `report-${++dirs}`);
    mkdirSync(dir);
    for (const [name, contents] of Object.entries(files)) writeFileSync(join(dir, name), contents);
    await writeSealedCertification(dir, report(), key === undefined ? undefined : signingKey(key));
    return dir;
  }

  /** certification.json written as given, and certification.sig over its bytes by `key`, naming what `sig` says. */
  function forged(certificationJson: string, key?: KeyPair, sig: Partial<SignatureFile> = {}): string {
    const dir = join(work, `forged-${++dirs}`);
    mkdirSync(dir);
    for (const [name, contents] of Object.entries(ARTIFACTS)) writeFileSync(join(dir, name), contents);
    writeFileSync(join(dir, 'certification.json'), certificationJson);
    if (key !== undefined) {
      const privateKey = createPrivateKey(key.privatePem);
      const digest = privateKey.asymmetricKeyType === 'ed25519' ? null : 'sha256';
      const signature = sign(digest, Buffer.from(certificationJson), { key: privateKey, dsaEncoding: 'der' });
      const file = {
        signs: 'certification.json',
        algorithm: digest === null ? 'Ed25519' : privateKey.asymmetricKeyType === 'ec' ? 'ECDSA-P256-SHA256' : 'RSA-PKCS1-SHA256',
        publicKeyFingerprint: key.fingerprint,
        publicKey: key.publicPem,
        signature: signature.toString('base64'),
        ...sig,
      };
      writeFileSync(join(dir, 'certification.sig'), JSON.stringify(file));
    }
    return dir;
  } // prettier-ignore

  /** The certification.json of a sealed report, its manifest as recorded. */
  const manifestOf = (dir: string): Certification => recorded(dir);
  const lines = (result: Verification): string[] => result.problems.map((p) => `${p.kind}: ${p.line}`);
  const digest = (text: string): ArtifactDigest => ({
    path: '',
    size: Buffer.byteLength(text),
    sha256: createHash('sha256').update(text).digest('hex'),
  });
  /** A sealed-looking certification.json listing `artifacts`, signed by `signature` when given. */
  const manifest = (artifacts: readonly ArtifactDigest[], signature?: SignatureRecord): string =>
    JSON.stringify({
      ...report(),
      integrity: { artifacts, ...(signature === undefined ? {} : { signature }) },
    });
  const listed = (name: keyof typeof ARTIFACTS): ArtifactDigest => ({
    ...digest(ARTIFACTS[name]),
    path: name,
  });
  const record = (pair: KeyPair, algorithm: string): SignatureRecord => ({
    file: 'certification.sig',
    algorithm,
    publicKeyFingerprint: pair.fingerprint,
  });

  it('gives exit 1 for an unsigned report whose verdict, counts or exit code were edited, naming the disagreement', async () => {
    const edits: [string, (r: Certification) => object, RegExp][] = [
      ['verdict', (r) => ({ ...r, verdict: 'WARNING' }), /^changed: certification\.json: its verdict is WARNING, but its checks make it PASSED \(0 FAILED, 0 WARNING/],
      ['counts', (r) => ({ ...r, counts: { ...r.counts, FAILED: 1 } }), /^changed: certification\.json: its counts \(FAILED 1\) disagree with its checks \(FAILED 0\)$/],
      ['exit code', (r) => ({ ...r, exitCode: 1 }), /^changed: certification\.json: its exit code is 1, but a PASSED run exits 0$/],
    ];
    for (const [what, edit, expected] of edits) {
      const dir = await sealed();
      writeFileSync(join(dir, 'certification.json'), JSON.stringify(edit(manifestOf(dir)), null, 2));
      const result = verifyReportDir(dir);
      assert.equal(result.exitCode, 1, lines(result).join('\n'));
      assert.equal(result.problems.length, 1, lines(result).join('\n'));
      assert.match(lines(result).at(-1) ?? '', expected, what);
    }
  }); // prettier-ignore

  it('is valid untouched: what an unsigned, a signed and a pinned report prove, counted', async () => {
    const unsigned = verifyReportDir(await sealed());
    assert.deepEqual(unsigned, {
      exitCode: 0,
      problems: [],
      notes: [
        '4 artifacts match certification.json, and its verdict, counts and exit code agree with its checks. It is not signed, so this proves only that the report agrees with itself: whoever can edit the report could have changed certification.json and the hashes in it together; a run with PIX_SIGNING_KEY_FILE signs it.',
      ],
    });
    const signed = await sealed(KEYS.ed25519);
    assert.deepEqual(verifyReportDir(signed), {
      exitCode: 0,
      problems: [],
      notes: [
        `4 artifacts match certification.json, and certification.sig signs it (Ed25519, key ${KEYS.ed25519.fingerprint}).`,
        `This proves only that the report is unchanged since the holder of key ${KEYS.ed25519.fingerprint} signed it: pin the key you expect with --fingerprint or --public-key.`,
      ],
    });
    assert.deepEqual(verifyReportDir(signed, KEYS.ed25519.fingerprint), {
      exitCode: 0,
      problems: [],
      notes: [
        `4 artifacts match certification.json, and certification.sig signs it with the expected key (Ed25519, key ${KEYS.ed25519.fingerprint}).`,
      ],
    });
    const one = verifyReportDir(await sealed(KEYS.ecdsa, { 'summary.md': '# Summary\n' }));
    assert.match(one.notes[0] ?? '', /^1 artifact matches certification\.json, and certification\.sig signs it \(ECDSA-P256-SHA256, key /);
    const none = verifyReportDir(await sealed(undefined, {}));
    assert.match(none.notes[0] ?? '', /^0 artifacts match certification\.json, and its verdict, counts and exit code agree with its checks\. It is not signed/);
  }); // prettier-ignore

  it('gives each changed artifact one line: its hash and, when it differs, its size; missing; outside the directory', async () => {
    const dir = await sealed();
    writeFileSync(join(dir, 'summary.md'), '# Summarz\n');
    writeFileSync(join(dir, 'junit.xml'), '<testsuites />\n');
    rmSync(join(dir, 'ledger.jsonl'));
    const result = verifyReportDir(dir);
    assert.equal(result.exitCode, 1);
    assert.deepEqual(result.notes, []);
    const recordedDigest = (name: string): string =>
      manifestOf(dir).integrity?.artifacts.find((a) => a.path === name)?.sha256 ?? 'none';
    assert.deepEqual(lines(result), [
      `changed: summary.md: changed since the run (sha256 ${digest('# Summarz\n').sha256}, ${recordedDigest('summary.md')} recorded; 10 bytes)`,
      `changed: junit.xml: changed since the run (sha256 ${digest('<testsuites />\n').sha256}, ${recordedDigest('junit.xml')} recorded; 15 bytes, 14 recorded)`,
      'changed: ledger.jsonl: missing (certification.json lists it, 15 bytes)',
    ]);
    const outside = forged(manifest([
      { ...listed('summary.md'), path: '/etc/hostname' },
      { ...listed('summary.md'), path: '..' },
      { ...listed('summary.md'), path: '../summary.md' },
      { ...listed('summary.md'), path: 'a/../../summary.md' },
      { ...listed('summary.md'), path: './a/../summary.md' },
    ]));
    assert.deepEqual(lines(verifyReportDir(outside)), [
      'changed: /etc/hostname: listed in certification.json, but outside the report directory',
      'changed: ..: listed in certification.json, but outside the report directory',
      'changed: ../summary.md: listed in certification.json, but outside the report directory',
      'changed: a/../../summary.md: listed in certification.json, but outside the report directory',
    ]);
  }); // prettier-ignore

  it('takes a name that only starts with two dots for a file inside the directory', () => {
    const dir = forged(manifest([{ ...digest('dots'), path: '..dots' }]));
    writeFileSync(join(dir, '..dots'), 'dots');
    const result = verifyReportDir(dir);
    assert.deepEqual(lines(result), []);
    assert.deepEqual(result.notes.slice(1), [
      "certification.html: not in certification.json's manifest, so nothing vouches for it",
      "junit.xml: not in certification.json's manifest, so nothing vouches for it",
      "ledger.jsonl: not in certification.json's manifest, so nothing vouches for it",
      "summary.md: not in certification.json's manifest, so nothing vouches for it",
    ]);
  });

  it('refuses a symbolic link or a directory where the run wrote a file, and cannot read a path through a file (exit 2)', () => {
    const dir = forged(manifest([listed('summary.md'), { ...listed('junit.xml'), path: 'sub' }, { ...listed('ledger.jsonl'), path: 'summary.md/inner' }]));
    rmSync(join(dir, 'summary.md'));
    writeFileSync(join(work, `target-${dirs}.md`), ARTIFACTS['summary.md']);
    symlinkSync(join(work, `target-${dirs}.md`), join(dir, 'summary.md'));
    mkdirSync(join(dir, 'sub'));
    const result = verifyReportDir(dir);
    assert.deepEqual(lines(result), [
      'changed: summary.md: a symbolic link, where the run wrote a file',
      'changed: sub: not a file, where the run wrote a file',
      'unreadable: summary.md/inner: cannot be read (ENOTDIR)',
    ]);
    assert.equal(result.exitCode, 1, 'a changed artifact outweighs one that cannot be read');
    const alone = verifyReportDir(forged(manifest([{ ...listed('ledger.jsonl'), path: 'summary.md/inner' }])));
    assert.deepEqual([alone.exitCode, lines(alone), alone.notes.length], [2, ['unreadable: summary.md/inner: cannot be read (ENOTDIR)'], 4]);
  }); // prettier-ignore

  it('lists the files no manifest entry covers, sorted, the manifest read as paths', () => {
    const dir = forged(manifest([{ ...listed('summary.md'), path: './summary.md' }, listed('junit.xml')]));
    writeFileSync(join(dir, 'a-notes.txt'), 'added');
    // The directory is read in byte order of the UTF-8 names; the notes sort as JavaScript does.
    writeFileSync(join(dir, '\u{1D49C}.txt'), 'added');
    writeFileSync(join(dir, '\uFB00.txt'), 'added');
    const result = verifyReportDir(dir);
    assert.equal(result.exitCode, 0);
    assert.deepEqual(result.notes, [
      '2 artifacts match certification.json, and its verdict, counts and exit code agree with its checks. It is not signed, so this proves only that the report agrees with itself: whoever can edit the report could have changed certification.json and the hashes in it together; a run with PIX_SIGNING_KEY_FILE signs it.',
      "a-notes.txt: not in certification.json's manifest, so nothing vouches for it",
      "certification.html: not in certification.json's manifest, so nothing vouches for it",
      "ledger.jsonl: not in certification.json's manifest, so nothing vouches for it",
      "\u{1D49C}.txt: not in certification.json's manifest, so nothing vouches for it",
      "\uFB00.txt: not in certification.json's manifest, so nothing vouches for it",
    ]);
    const problems = verifyReportDir(forged(manifest([{ ...listed('summary.md'), size: 1 }])));
    assert.deepEqual(problems.notes, [
      "certification.html: not in certification.json's manifest, so nothing vouches for it",
      "junit.xml: not in certification.json's manifest, so nothing vouches for it",
      "ledger.jsonl: not in certification.json's manifest, so nothing vouches for it",
    ], 'no verdict note beside a problem');
  }); // prettier-ignore

  it('reads no signature file of this suite in a certification.sig that is not JSON, lacks fields, signs another file or holds no key', () => {
    const json = manifest([listed('summary.md')]);
    const cases: [Partial<Record<keyof SignatureFile, unknown>> | string, string][] = [
      ['not json', 'not JSON'],
      ['null', 'lacks signs, algorithm, publicKeyFingerprint, publicKey, signature'],
      [{ signs: 'certification.json', algorithm: 'Ed25519', publicKey: 7 }, 'lacks publicKeyFingerprint, publicKey, signature'],
      [{ signs: 'summary.md', algorithm: 'Ed25519', publicKeyFingerprint: KEYS.ed25519.fingerprint, publicKey: KEYS.ed25519.publicPem, signature: 'AA==' }, 'signs "summary.md", not certification.json'],
      [{ signs: 'certification.json', algorithm: 'Ed25519', publicKeyFingerprint: KEYS.ed25519.fingerprint, publicKey: 'no key', signature: 'AA==' }, 'holds a public key that cannot be read'],
    ];
    for (const [sig, problem] of cases) {
      const dir = forged(json);
      writeFileSync(join(dir, 'certification.sig'), typeof sig === 'string' ? sig : JSON.stringify(sig));
      const result = verifyReportDir(dir);
      assert.equal(result.exitCode, 1, problem);
      assert.deepEqual(lines(result), [
        `changed: certification.sig: ${problem}, so no signature this suite wrote`,
        'changed: certification.sig: certification.json records no signature, so the run did not write it',
      ]);
    }
  }); // prettier-ignore

  it('refuses a key this suite never signs with, whatever the file claims', () => {
    const weak = keyPair(() => generateKeyPairSync('rsa', { modulusLength: 1024 }));
    const dir = forged(manifest([listed('summary.md')], record(weak, 'RSA-PKCS1-SHA256')), weak);
    assert.deepEqual(lines(verifyReportDir(dir)), [
      'changed: certification.sig: holds a 1024-bit RSA key, which this suite never signs with',
    ]);
  });

  it('names each way a signature disagrees: the key it names, the algorithm, the bytes, the pinned key, the key certification.json records', () => {
    const json = manifest([listed('summary.md')], record(KEYS.ecdsa, 'ECDSA-P256-SHA256'));
    const named = forged(json, KEYS.ecdsa, { publicKeyFingerprint: KEYS.rsa.fingerprint, algorithm: 'Ed25519' });
    assert.deepEqual(lines(verifyReportDir(named, KEYS.ed25519.fingerprint)), [
      `changed: certification.sig: names key ${KEYS.rsa.fingerprint} but holds key ${KEYS.ecdsa.fingerprint}`,
      'changed: certification.sig: names Ed25519, but its key signs with ECDSA-P256-SHA256',
      `changed: certification.sig: signed by key ${KEYS.ecdsa.fingerprint}, not by the expected key ${KEYS.ed25519.fingerprint}`,
    ]);
    const bytes = forged(json, KEYS.ecdsa, { signature: Buffer.from('not a signature').toString('base64') });
    assert.deepEqual(lines(verifyReportDir(bytes, KEYS.ecdsa.fingerprint)), [
      'changed: certification.json: the signature in certification.sig does not match it, so it changed since it was signed',
    ]);
    const other = forged(manifest([listed('summary.md')], record(KEYS.ecdsa, 'ECDSA-P256-SHA256')), KEYS.ed25519);
    const result = verifyReportDir(other);
    assert.deepEqual(lines(result), [
      `changed: certification.sig: signed by key ${KEYS.ed25519.fingerprint}, but certification.json names key ${KEYS.ecdsa.fingerprint}`,
    ]);
    assert.deepEqual(result.notes.length, 3);
    assert.deepEqual(lines(verifyReportDir(other, KEYS.ecdsa.fingerprint)), [
      `changed: certification.sig: signed by key ${KEYS.ed25519.fingerprint}, not by the expected key ${KEYS.ecdsa.fingerprint}`,
    ], 'a signature with a problem names no signer to compare with the record');
  }); // prettier-ignore

  it('expects a signature when a key is pinned or certification.json records one', async () => {
    const unsigned = await sealed();
    assert.deepEqual(lines(verifyReportDir(unsigned, KEYS.ecdsa.fingerprint)), [
      `changed: certification.sig: missing, so the report is not signed, and key ${KEYS.ecdsa.fingerprint} was expected`,
    ]);
    const signed = await sealed(KEYS.ecdsa);
    rmSync(join(signed, 'certification.sig'));
    assert.deepEqual(lines(verifyReportDir(signed)), [
      `changed: certification.sig: missing, but certification.json says key ${KEYS.ecdsa.fingerprint} signed it`,
    ]);
  });

  /** JSON.parse's own message, which differs between versions of node. */
  function parseError(text: string): string {
    try {
      JSON.parse(text);
    } catch (error) {
      return (error as Error).message;
    }
    return assert.fail(`${text} parsed`);
  }

  it('cannot read a certification.json that is no JSON, no certification or records no hashes (exit 2), unless a bad signature already says it changed (exit 1)', () => {
    const cases: [string, string][] = [
      ['{"schemaVersion": 4,', `not JSON (${parseError('{"schemaVersion": 4,')})`],
      [JSON.stringify({ ...report(), verdict: 'MAYBE' }), 'is not a valid certification (/verdict must be equal to one of the allowed values)'],
      [JSON.stringify({ ...report(), schemaVersion: 2 }), 'records no hashes of the other artifacts (schema version 2, from a suite that did not record them)'],
      [JSON.stringify(report()), 'records no hashes of the other artifacts (schema version 2, from a suite that did not record them)'],
    ];
    for (const [json, problem] of cases) {
      const plain = verifyReportDir(forged(json));
      assert.deepEqual([plain.exitCode, lines(plain), plain.notes], [2, [`unreadable: certification.json: ${problem}`], []]);
      const signed = verifyReportDir(forged(json, KEYS.ed25519, { signature: 'AA==' }));
      assert.deepEqual([signed.exitCode, lines(signed)], [1, [
        'changed: certification.json: the signature in certification.sig does not match it, so it changed since it was signed',
        `changed: certification.json: ${problem}`,
      ]]);
    }
  }); // prettier-ignore

  it('cannot read a directory that is missing, a file, or behind a file; nor one without certification.json', () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    for (const [dir, line] of [
      [join(work, 'nowhere'), `${join(work, 'nowhere')}: does not exist`],
      [file, `${file}: not a directory`],
      [join(file, 'inner'), `${join(file, 'inner')}: cannot be read (ENOTDIR)`],
    ] as const)
      assert.deepEqual(verifyReportDir(dir), { exitCode: 2, problems: [{ kind: 'unreadable', line }], notes: [] });
    const empty = join(work, `empty-${++dirs}`);
    mkdirSync(empty);
    assert.deepEqual(lines(verifyReportDir(empty, KEYS.ecdsa.fingerprint)), [
      'unreadable: certification.json: missing, so this is no report directory of a run, or the run wrote no certification',
    ]);
    mkdirSync(join(empty, 'certification.json'));
    assert.throws(() => verifyReportDir(empty), { code: 'EISDIR' }, 'a certification.json that cannot be read is not taken for a missing one');
  }); // prettier-ignore

  it('reads a fingerprint as people copy it, and a public key from a key or certificate PEM', () => {
    const hex = KEYS.ecdsa.fingerprint;
    const colons = hex.toUpperCase().replace(/(..)(?!$)/g, '$1:');
    for (const text of [hex, ` ${hex}\n`, `sha256:${hex}`, `SHA256:${colons}`, colons])
      assert.equal(normalFingerprint(text), hex, text);
    for (const text of ['', hex.slice(1), `${hex}0`, `${hex.slice(1)}g`, `x${hex}`, `${hex}x`, `sha1:${hex}`, `${hex.slice(0, 2)}sha256:${hex.slice(2)}`, `md5sha256:${hex}`])
      assert.equal(normalFingerprint(text), undefined, text);
    assert.equal(publicKeyOf('not a key'), undefined);
    assert.equal(publicKeyOf(KEYS.rsa.privatePem)?.type, 'public');
    assert.equal(publicKeyOf(KEYS.rsa.publicPem)?.asymmetricKeyType, 'rsa');
  }); // prettier-ignore
});
