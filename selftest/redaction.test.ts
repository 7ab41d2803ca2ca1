/**
 * No secret in any artifact: the suite runs against a provider double with canary credentials, the
 * double issues canary tokens and echoes every header back in its refusals, and then every file the
 * run wrote and everything it printed is searched for the canaries.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DOUBLE_CREDENTIALS, startProviderDouble, type ProviderDouble } from './support/provider-double.ts';
import { TEST_PAYEE } from './support/live-env.ts';
import { runSuite, type SuiteRun } from './support/run-suite.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('redaction', () => {
  const reportDir = mkdtempSync(join(tmpdir(), 'pix-redaction-'));
  let double: ProviderDouble;
  let run: SuiteRun;

  before(async () => {
    double = await startProviderDouble({ reportDir, echoHeaders: true });
    run = await runSuite(
      {
        PIX_BASE_URL: double.url,
        ...DOUBLE_CREDENTIALS,
        PIX_REPORT_DIR: reportDir,
        PIX_WEBHOOK_TIMEOUT_MS: '300',
        ...TEST_PAYEE,
      },
      // A trace would hold every header sent; asked for one, the suite must still record none.
      ['--trace', 'on'],
    );
  });
  after(() => double.close());

  it('ran the whole suite, with failures whose evidence quotes the echoed headers', () => {
    assert.equal(run.code, 1, run.stderr);
    assert.ok(double.issuedTokens.length > 0);
    assert.ok(double.withdrawals.length > 30);
  });

  it('writes no canary secret, certificate or token in any file or output', () => {
    const canaries = [
      DOUBLE_CREDENTIALS.PIX_CLIENT_SECRET,
      DOUBLE_CREDENTIALS.PIX_CERT_CLIENT,
      ...double.issuedTokens,
    ];
    const files = filesUnder(reportDir);
    for (const name of [
      'certification.json',
      'certification.html',
      'summary.md',
      'junit.xml',
      'ledger.jsonl',
    ]) {
      assert.ok(
        files.some((f) => f.endsWith(name)),
        `${name} was written`,
      );
    }
    const places = [
      ...files.map((f) => ({ where: f, text: readFileSync(f, 'utf8') })),
      { where: 'stdout', text: run.stdout },
      { where: 'stderr', text: run.stderr },
    ];
    const leaks = places.flatMap(({ where, text }) =>
      canaries.filter((c) => text.includes(c)).map((c) => `${where}: ${c.slice(0, 8)}…`),
    );
    assert.deepEqual(leaks, []);
  });

  it('records no trace, even when asked for one', () => {
    assert.deepEqual(
      filesUnder(reportDir).filter((f) => f.endsWith('.zip') || f.endsWith('.trace')),
      [],
    );
  });

  it('keeps enough to tell tokens apart: their length and last four characters', () => {
    const report = readFileSync(join(reportDir, 'certification.json'), 'utf8');
    assert.match(report, /\*\*\*\(\d+ chars, …[0-9a-f]{4}\)/);
  });
});
