/**
 * A full run of the suite through a mutual TLS gateway with a private CA (support/mutual-tls-sandbox.ts),
 * with PIX_CA_FILE and a PEM client certificate whose key is encrypted, so the passphrase is in play:
 * every withdrawal of the plan goes through it, and no artifact holds the passphrase, the key or a line
 * of its PEM body. The short run and the stops: selftest/mutual-tls.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_RUN_SHAPE } from '../../src/checks/family.ts';
import { withdrawalPlan } from '../../src/run/plan.ts';
import { loadSpec } from '../../src/spec/spec.ts';
import { encryptedKey } from '../support/certificates.ts';
import { leaksOf } from '../support/leaks.ts';
import {
  describeRun,
  PASSPHRASE,
  pemBody,
  startMutualTlsSandbox,
  type MutualTlsSandbox,
} from '../support/mutual-tls-sandbox.ts';
import { runSuite } from '../support/run-suite.ts';

describe('certify through mutual TLS with a private CA (a CA made here)', () => {
  let gateway: MutualTlsSandbox;
  before(async () => {
    gateway = await startMutualTlsSandbox();
  });
  after(() => gateway.close());

  it('passes a full run with PIX_CA_FILE and a PEM certificate whose key is encrypted, leaking none of it', async () => {
    const run = await runSuite(
      gateway.env(
        {
          PIX_CA_FILE: gateway.files.ca,
          PIX_TLS_CERT_FILE: gateway.files.cert,
          PIX_TLS_KEY_FILE: gateway.files.encryptedKey,
          PIX_TLS_PASSPHRASE: PASSPHRASE,
        },
        'reference',
      ),
    );
    assert.equal(run.code, 0, describeRun(run));
    assert.deepEqual(run.idsWith('FAILED'), [], describeRun(run));
    assert.equal(run.report?.verdict, 'PASSED', describeRun(run));
    assert.equal(run.verdictOf('TRANSPORT-ENCRYPTED'), 'PASSED');
    assert.equal(
      gateway.sandbox.withdrawalsReceived('reference'),
      withdrawalPlan(loadSpec(), 0.01, DEFAULT_RUN_SHAPE, true).requests,
      'every withdrawal of the plan went through the mutual TLS gateway',
    );
    const encrypted = encryptedKey(gateway.client.key, PASSPHRASE);
    const secrets = [
      PASSPHRASE,
      ...pemBody(gateway.client.key),
      ...pemBody(encrypted),
      pemBody(gateway.client.key).join(''),
    ];
    assert.deepEqual(leaksOf(run, secrets), []);
  });
});
