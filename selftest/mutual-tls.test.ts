/**
 * Mutual TLS and a private CA: the sandbox serves https with a certificate from a CA made here and
 * demands client certificates that CA signed, as a gateway before go-live does
 * (support/mutual-tls-sandbox.ts). npm run certify passes through it with a PFX in a short run; it
 * stops with exit 2 and the one line that names the fix without a client certificate, with one from
 * another CA, without PIX_CA_FILE and with a key that does not match. The full run through it, with a
 * PEM certificate whose key is encrypted: selftest/slow/mutual-tls-run.test.ts.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixFor } from '../src/report/errors.ts';
import { loadConfig } from '../src/config/config.ts';
import { redact } from '../src/secrets/redact.ts';
import { receiverTls } from '../src/transport/tls.ts';
import { WebhookClient } from '../src/webhook/receiver-client.ts';
import { startReceiver, type RunningReceiver } from '../src/receiver/receiver.ts';
import { checkReceiver, openReceiverRun } from '../src/webhook/setup.ts';
import { certificateAuthority, encryptedKey, type Authority } from './support/certificates.ts';
import { leaksOf } from './support/leaks.ts';
import { assertStoppedBeforeTheRun, runSuite, stopLines } from './support/run-suite.ts';
import {
  describeRun,
  PASSPHRASE,
  pemBody,
  startMutualTlsSandbox,
  type MutualTlsSandbox,
} from './support/mutual-tls-sandbox.ts';
import { ConfigError } from '../src/config/errors.ts';
import { registerConfigSecrets } from '../src/config/register-secrets.ts';
import { temporaryDir } from './support/temporary.ts';

describe('certify through mutual TLS with a private CA (a CA made here)', { concurrency: true }, () => {
  let gateway: MutualTlsSandbox;
  before(async () => {
    gateway = await startMutualTlsSandbox();
  });
  after(() => gateway.close());

  it('passes with a PFX and its passphrase (--grep @smoke)', async () => {
    const run = await runSuite(
      // A selected run is INCOMPLETE, which a live run only lets pass when asked to.
      gateway.env({
        PIX_CA_FILE: gateway.files.ca,
        PIX_TLS_PFX_FILE: gateway.files.pfx,
        PIX_TLS_PASSPHRASE: PASSPHRASE,
        PIX_REQUIRE_COMPLETE: '0',
      }),
      // One worker: a second costs about 2 s of processor time and proves nothing more of the certificate.
      ['--grep', '@smoke', '--workers=1'],
    );
    assert.equal(run.code, 0, describeRun(run));
    for (const id of ['TOKEN-ISSUED', 'PAYMENT-ACCEPTED', 'TRANSPORT-ENCRYPTED'])
      assert.equal(run.verdictOf(id), 'PASSED', `${id}: ${describeRun(run)}`);
    assert.deepEqual(leaksOf(run, [PASSPHRASE]), []);
  });

  const stops: [string, () => Record<string, string>, RegExp][] = [
    [
      'without a client certificate',
      () => ({ PIX_CA_FILE: gateway.files.ca }),
      /^PIX_TLS_CERT_FILE: is not set, but 127\.0\.0\.1:\d+ wants a client certificate \(TLS alert: certificate required\)\. Set PIX_TLS_CERT_FILE and PIX_TLS_KEY_FILE/,
    ],
    [
      'with a client certificate from another CA',
      () => ({ PIX_CA_FILE: gateway.files.ca, PIX_TLS_CERT_FILE: gateway.files.strangerCert, PIX_TLS_KEY_FILE: gateway.files.strangerKey }),
      /^PIX_TLS_CERT_FILE: 127\.0\.0\.1:\d+ refused the client certificate presented/,
    ],
    [
      'without PIX_CA_FILE',
      () => ({ PIX_TLS_CERT_FILE: gateway.files.cert, PIX_TLS_KEY_FILE: gateway.files.key }),
      /^PIX_CA_FILE: the certificate of 127\.0\.0\.1 is not trusted \(issued by Selftest Gateway CA, [A-Z_]+\)\. If the environment uses a private certificate authority, set PIX_CA_FILE/,
    ],
    [
      'with a key that does not match the certificate',
      () => ({ PIX_CA_FILE: gateway.files.ca, PIX_TLS_CERT_FILE: gateway.files.cert, PIX_TLS_KEY_FILE: gateway.files.strangerKey }),
      /^PIX_TLS_KEY_FILE: does not match the certificate in PIX_TLS_CERT_FILE/,
    ],
  ]; // prettier-ignore
  for (const [what, extra, line] of stops) {
    it(`stops ${what}: exit 2, one line`, async () => {
      const run = await runSuite(gateway.env(extra()));
      assertStoppedBeforeTheRun(run);
      const lines = stopLines(run);
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0] ?? '', line);
    });
  }
});

describe('a remote receiver behind a private CA', () => {
  const token = 'selftest-remote-receiver-token-0123456789';
  let authority: Authority;
  let receiver: RunningReceiver;
  const dir = temporaryDir('pix-mtls-receiver-');
  before(async () => {
    authority = certificateAuthority('Receiver CA');
    const { cert, key } = authority.issue({ names: ['127.0.0.1'] });
    writeFileSync(join(dir, 'ca.pem'), authority.cert);
    receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      token,
      shared: true,
      tls: { cert: Buffer.from(cert), key: Buffer.from(key), clientCa: undefined, requireClientCert: false },
    });
  });
  after(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const configWith = (extra: Record<string, string>) =>
    loadConfig({
      PIX_BASE_URL: 'https://api.example.com',
      PIX_CLIENT_ID: 'client',
      PIX_CLIENT_SECRET: 'client-secret-value',
      PIX_CERT_CLIENT: Buffer.from('public key').toString('base64'),
      PIX_WEBHOOK_RECEIVER_URL: receiver.url,
      PIX_WEBHOOK_RECEIVER_TOKEN: token,
      ...extra,
    });

  it('is reached with PIX_CA_FILE: checked, opened, an address registered, closed', async () => {
    const config = configWith({ PIX_CA_FILE: join(dir, 'ca.pem') });
    await checkReceiver(config);
    const run = await openReceiverRun(config);
    const address = await new WebhookClient(run.runUrl, run.token, receiverTls(config.tls)).register();
    assert.ok(address.url.startsWith(`${receiver.url}/`), address.url);
    await run.close();
  });

  it('is refused without it, in a line that names PIX_CA_FILE', async () => {
    await assert.rejects(checkReceiver(configWith({})), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(
        error.message,
        /^PIX_WEBHOOK_RECEIVER_URL: the receiver at https:\/\/127\.0\.0\.1:\d+ did not answer \(.*certificate.*\)\..*PIX_CA_FILE/,
      );
      return true;
    });
  });
});

describe('the TLS material is a secret of the one redaction path', () => {
  it('masks the passphrase and every line of the key once the configuration is registered', () => {
    const dir = temporaryDir('pix-mtls-unit-');
    try {
      const client = certificateAuthority('Unit CA').issue({ client: '/CN=unit' });
      const encrypted = encryptedKey(client.key, PASSPHRASE);
      writeFileSync(join(dir, 'client.pem'), client.cert);
      writeFileSync(join(dir, 'client.key'), encrypted);
      registerConfigSecrets(
        loadConfig({
          PIX_BASE_URL: 'https://api.example.com',
          PIX_CLIENT_ID: 'client',
          PIX_CLIENT_SECRET: 'client-secret-value',
          PIX_CERT_CLIENT: Buffer.from('public key').toString('base64'),
          PIX_TLS_CERT_FILE: join(dir, 'client.pem'),
          PIX_TLS_KEY_FILE: join(dir, 'client.key'),
          PIX_TLS_PASSPHRASE: PASSPHRASE,
        }),
      );
      const echoed = redact(`passphrase=${PASSPHRASE}\n${encrypted}`);
      for (const secret of [PASSPHRASE, ...pemBody(encrypted)])
        assert.ok(!echoed.includes(secret), `${secret.slice(0, 12)}… is masked`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells a failed run how to fix a refused client certificate or an unknown CA', () => {
    assert.match(
      fixFor('Error: write EPROTO tlsv13 alert certificate required') ?? '',
      /PIX_TLS_CERT_FILE and PIX_TLS_KEY_FILE \(or PIX_TLS_PFX_FILE/,
    );
    assert.match(fixFor('unable to verify the first certificate') ?? '', /PIX_CA_FILE adds a private CA/);
  });
});
