/**
 * The sandbox behind a mutual TLS gateway, as a provider's is before go-live: https with a certificate
 * from a CA made here, demanding client certificates that CA signed; the client's PEM files (its key
 * also encrypted, and as a PFX), and a certificate of another CA. For selftest/mutual-tls.test.ts and
 * selftest/slow/mutual-tls-run.test.ts.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findScenario } from '../../sandbox/scenarios.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { certificateAuthority, encryptedKey, pkcs12, type Certificate } from './certificates.ts';
import { sandboxEnv } from './live-env.ts';
import type { SuiteRun } from './run-suite.ts';
import { temporaryDir } from './temporary.ts';

export const PASSPHRASE = 'selftest-mtls-passphrase-7c1e';

/** The lines of a PEM text between its BEGIN and END lines. */
export const pemBody = (pem: string): string[] =>
  pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));

export function describeRun(run: SuiteRun): string {
  return `exit ${run.code}; FAILED: ${run.idsWith('FAILED').join(', ') || 'none'}\n${run.stderr.slice(-2000)}`;
}

export interface MutualTlsSandbox {
  readonly sandbox: RunningSandbox;
  readonly client: Certificate;
  readonly files: Record<
    'ca' | 'cert' | 'key' | 'encryptedKey' | 'pfx' | 'strangerCert' | 'strangerKey',
    string
  >;
  /** The variables of a run against `scenario` with `extra`. */
  env(extra: Record<string, string>, scenario?: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startMutualTlsSandbox(): Promise<MutualTlsSandbox> {
  const dir = temporaryDir('pix-mtls-');
  const file = (name: string, contents: string | Buffer): string => {
    const path = join(dir, name);
    writeFileSync(path, contents, { mode: 0o600 });
    return path;
  };
  const ca = certificateAuthority('Selftest Gateway CA');
  const server = ca.issue({ names: ['127.0.0.1'] });
  const client = ca.issue({ client: '/O=Integrator/CN=pix-certify' });
  const stranger = certificateAuthority('Someone Else CA').issue({ client: '/CN=stranger' });
  const files = {
    ca: file('ca.pem', ca.cert),
    cert: file('client.pem', client.cert),
    key: file('client.key', client.key),
    encryptedKey: file('client-encrypted.key', encryptedKey(client.key, PASSPHRASE)),
    pfx: file('client.p12', pkcs12(client, PASSPHRASE)),
    strangerCert: file('stranger.pem', stranger.cert),
    strangerKey: file('stranger.key', stranger.key),
  };
  const sandbox = await startSandbox({ tls: { ...server, clientCa: ca.cert } });
  return {
    sandbox,
    client,
    files,
    env: (extra, scenario = 'lenient') =>
      sandboxEnv(sandbox, scenario, { ...findScenario(scenario)?.suiteEnv, ...extra }),
    close: async () => {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
