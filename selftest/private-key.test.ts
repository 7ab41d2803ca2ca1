/** A private key given where cert_client's public key belongs stops the run before any request (§2.2, §4.1). */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config/config.ts';
import { ConfigError } from '../src/config/errors.ts';
import { encryptedKey, pkcs12, selfSigned } from './support/certificates.ts';
import { runSuite, stopLines } from './support/run-suite.ts';
import { temporaryDir } from './support/temporary.ts';

const LIVE = {
  PIX_BASE_URL: 'https://api.example.com',
  PIX_CLIENT_ID: 'client',
  PIX_CLIENT_SECRET: 'secret-value',
};
const dir = temporaryDir('pix-private-key-');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = (key: KeyObject, type: 'pkcs1' | 'pkcs8' | 'sec1'): string =>
  key.export({ type, format: 'pem' }).toString();

function openSshKey(): Buffer {
  const path = join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path], { stdio: 'ignore' });
  return readFileSync(path);
}

const PRIVATE_FORMS: [string, () => Buffer][] = [
  ['PEM PKCS#1 (RSA PRIVATE KEY)', () => Buffer.from(pem(rsa.privateKey, 'pkcs1'))],
  ['PEM PKCS#8 (PRIVATE KEY)', () => Buffer.from(pem(ec.privateKey, 'pkcs8'))],
  ['PEM SEC1 (EC PRIVATE KEY)', () => Buffer.from(pem(ec.privateKey, 'sec1'))],
  ['encrypted PEM PKCS#8', () => Buffer.from(encryptedKey(pem(ec.privateKey, 'pkcs8'), 'passphrase-123'))],
  ['encrypted traditional PEM (Proc-Type)', () => Buffer.from(rsa.privateKey.export({ type: 'pkcs1', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'passphrase-123' }).toString())],
  ['DER PKCS#8', () => rsa.privateKey.export({ type: 'pkcs8', format: 'der' })],
  ['OpenSSH', openSshKey],
  ['PKCS#12', () => pkcs12(selfSigned(), 'passphrase-123')],
  ['JWK with d', () => Buffer.from(JSON.stringify(ec.privateKey.export({ format: 'jwk' })))],
  ['JWK set with d', () => Buffer.from(JSON.stringify({ keys: [rsa.privateKey.export({ format: 'jwk' })] }))],
]; // prettier-ignore

const PUBLIC_FORMS: [string, () => Buffer][] = [
  ['PEM SPKI public key', () => Buffer.from(ec.publicKey.export({ type: 'spki', format: 'pem' }).toString())],
  ['PEM PKCS#1 public key', () => Buffer.from(rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString())],
  ['a certificate', () => Buffer.from(selfSigned().cert)],
  ['public JWK', () => Buffer.from(JSON.stringify(ec.publicKey.export({ format: 'jwk' })))],
]; // prettier-ignore

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail('the configuration was accepted');
}

function writeKey(name: string, bytes: Buffer): string {
  const path = join(dir, name.replace(/\W+/g, '-'));
  writeFileSync(path, bytes, { mode: 0o600 });
  return path;
}

describe('a private key given as cert_client', () => {
  for (const [form, make] of PRIVATE_FORMS) {
    it(`stops on ${form} in PIX_CERT_FILE or PIX_CERT_CLIENT, quoting none of it`, () => {
      const bytes = make();
      const path = writeKey(form, bytes);
      const givenAs: [string, Record<string, string>][] = [
        ['PIX_CERT_FILE', { PIX_CERT_FILE: path }],
        ['PIX_CERT_CLIENT', { PIX_CERT_CLIENT: bytes.toString('base64') }],
      ];
      for (const [variable, env] of givenAs) {
        const error = refusal({ ...LIVE, ...env });
        assert.equal(error.problems.length, 1, error.message);
        assert.equal(error.variable, variable);
        assert.match(error.message, /must never leave this machine/);
        assert.match(error.message, /openssl|ssh-keygen|remove the members/);
        const body = bytes.toString('base64').slice(20, 60);
        assert.ok(!error.message.includes(body), 'the message quotes no key material');
      }
    });
  }

  for (const [form, make] of PUBLIC_FORMS) {
    it(`accepts ${form}`, () => {
      const config = loadConfig({ ...LIVE, PIX_CERT_FILE: writeKey(form, make()) });
      assert.equal(config.mode, 'live');
    });
  }
});

describe('pix-certify with a private key in PIX_CERT_FILE', () => {
  const arrivals: string[] = [];
  const server = createServer((request, response) => {
    arrivals.push(`${request.method ?? ''} ${request.url ?? ''}`);
    response.end();
  });
  let baseUrl = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exits 2 with one line naming the variable, and the listening socket receives no request', async () => {
    const run = await runSuite({
      ...LIVE,
      PIX_BASE_URL: baseUrl,
      PIX_CERT_FILE: writeKey('run-key', Buffer.from(pem(rsa.privateKey, 'pkcs8'))),
    });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    const lines = stopLines(run);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(
      lines[0] ?? '',
      /^PIX_CERT_FILE: .* is a PEM private key \(PRIVATE KEY\), which must never leave this machine/,
    );
    assert.match(lines[0] ?? '', /openssl pkey -in <key file> -pubout/);
    assert.deepEqual(arrivals, []);
  });
});
