/**
 * The real suite against a provider that misbehaves on purpose (support/hostile-double.ts), in one
 * run with every switch that does not get in another's way: our secrets echoed back in every form,
 * tokens where refusals were due, a 200 MB body, an endless body, a gzip bomb, a token answer with
 * 200,000 fields, terminal escapes. Then: no secret or token in any file the run wrote or anything
 * it printed; the run's whole process tree stayed small in memory and in work; what the double
 * received is what the suite recorded, and what its curl line sends.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import {
  startHostileDouble,
  type HostileCredentials,
  type HostileDouble,
  type ReceivedRequest,
} from '../support/hostile-double.ts';
import { artifactsOf, filesUnder, leaksOf } from '../support/leaks.ts';
import { TEST_PAYEE } from '../support/live-env.ts';
import { runSuite, type SuiteRun } from '../support/run-suite.ts';
import { watchProcessTree, type TreeWatch } from '../support/process-tree.ts';
import { parseXml } from '../support/xml.ts';
import { temporaryDir } from '../support/temporary.ts';

const MB = 1024 * 1024;

const hasHeader = (request: ReceivedRequest, name: string): boolean =>
  request.headers.some(([key]) => key.toLowerCase() === name);

interface Evidence {
  readonly reproduction?: string;
  readonly actual?: string;
}

/** A live run against the double, as a careless integrator configures it (user-info in the URL). */
function liveEnv(
  double: HostileDouble,
  credentials: HostileCredentials,
  certFile: string,
  reportDir: string,
): Record<string, string> {
  return {
    PIX_BASE_URL: double.url,
    PIX_CLIENT_ID: credentials.clientId,
    PIX_CLIENT_SECRET: credentials.clientSecret,
    PIX_CERT_FILE: certFile,
    PIX_REPORT_DIR: reportDir,
    ...TEST_PAYEE,
  };
}

/** A throwaway client key pair: the public key is cert_client, written to a file as PIX_CERT_FILE reads it. */
function clientCredentials(keyDir: string): {
  credentials: HostileCredentials;
  certFile: string;
  pem: string;
} {
  const pem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();
  const certFile = join(keyDir, 'client-public-key.pem');
  writeFileSync(certFile, pem);
  return {
    pem,
    certFile,
    credentials: {
      clientId: 'hostile-client',
      clientSecret: `hostile-secret-${randomBytes(12).toString('hex')}`,
      certClient: Buffer.from(pem).toString('base64'),
      user: 'hostile-user',
      password: `hostile-pass-${randomBytes(12).toString('hex')}`,
    },
  };
}

describe('against a hostile provider', () => {
  const reportDir = temporaryDir('pix-hostile-');
  const keyDir = temporaryDir('pix-hostile-key-');
  const { credentials, certFile, pem } = clientCredentials(keyDir);
  const pemBody = pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
  let double: HostileDouble;
  let run: SuiteRun;
  let tree: TreeWatch;
  let seconds = 0;

  before(async () => {
    double = await startHostileDouble(credentials, {
      secretAsWithdrawalId: true,
      echoHeaders: true,
      secretAcross300: true,
      echoAllTokens: true,
      tokenForNegativeCases: true,
      encodedEcho: true,
      tokenAsKey: true,
      refreshTokens: true,
      pemEcho: true,
      escapes: true,
      failWithoutAccept: true,
      hugeBody: true,
      endlessBody: true,
      gzipBomb: true,
      manyFields: true,
    });
    tree = watchProcessTree(`PIX_REPORT_DIR=${reportDir}`);
    const started = performance.now();
    run = await runSuite(
      {
        ...liveEnv(double, credentials, certFile, reportDir),
        PIX_WEBHOOK_TIMEOUT_MS: '300',
        // Were a body not cut at PIX_MAX_RESPONSE_BYTES, the time-out alone would take the run past 40 s.
        PIX_REQUEST_TIMEOUT_MS: '60000',
      },
      // A trace would hold every header sent; asked for one, the suite must still record none.
      ['--trace', 'on'],
    );
    seconds = (performance.now() - started) / 1000;
    tree.stop();
  });
  after(async () => {
    await double.close();
    for (const dir of [reportDir, keyDir]) rmSync(dir, { recursive: true, force: true });
  });

  it("runs the whole suite to a report, each unbounded answer the environment's failure", () => {
    assert.ok(run.report !== undefined, run.stderr);
    assert.equal(run.report.verdict, 'FAILED');
    assert.equal(run.code, run.report.exitCode);
    assert.ok(double.issued.length > 10, 'tokens were issued, refresh and negative ones included');
    const errors = (run.report.suiteErrors as { message: string }[]).map((e) => e.message);
    assert.deepEqual(
      errors.filter((m) => m.includes('PIX_MAX_RESPONSE_BYTES')),
      [],
      'an answer cut at the bound is no suite error',
    );
    const complete = run.report.checks.find((c) => c.id === 'RESPONSE-COMPLETE') as
      { verdict: string; evidence?: { actual?: string }[] } | undefined;
    assert.equal(complete?.verdict, 'FAILED');
    assert.ok(
      complete.evidence?.some((e) => e.actual?.includes('PIX_MAX_RESPONSE_BYTES')),
      `the huge, endless and gzip bodies: ${JSON.stringify(complete.evidence)}`,
    );
  });

  it('writes no secret or token, in any form, in any file or output', () => {
    const secrets = [
      credentials.clientSecret,
      credentials.certClient,
      credentials.password,
      pemBody.join(''),
      ...pemBody,
      ...double.issued,
    ];
    const files = filesUnder(reportDir);
    for (const name of [
      'certification.json',
      'certification.html',
      'summary.md',
      'junit.xml',
      'ledger.jsonl',
    ])
      assert.ok(
        files.some((f) => f.endsWith(name)),
        `${name} was written`,
      );
    assert.deepEqual(leaksOf(run, secrets), []);
  });

  it('obeys no escape sequence: no ESC byte in the console or any report, and junit.xml is XML 1.0', () => {
    assert.deepEqual(
      artifactsOf(run)
        .filter(({ text }) => text.includes('\x1b'))
        .map(({ where }) => where),
      [],
    );
    assert.match(readFileSync(join(reportDir, 'certification.html'), 'utf8'), /\\x1b\[2J/);
    assert.doesNotThrow(() => parseXml(readFileSync(join(reportDir, 'junit.xml'), 'utf8')));
  });

  it('keeps enough to tell tokens apart: their length and last four characters', () => {
    assert.match(
      readFileSync(join(reportDir, 'certification.json'), 'utf8'),
      /\*\*\*\(\d+ chars, …[0-9a-f]{4}\)/,
    );
  });

  it('records no trace, even when asked for one', () => {
    assert.deepEqual(
      filesUnder(reportDir).filter((f) => f.endsWith('.zip') || f.endsWith('.trace')),
      [],
    );
  });

  it('removes the run-private secrets registry when the run ends', () => {
    assert.ok(tree.secretsDir !== undefined, 'the workers were told where the registry is');
    assert.ok(!tree.secretsDir.startsWith(reportDir));
    assert.ok(!existsSync(tree.secretsDir));
  });

  // The run's processor time stands for its duration: wall time on a shared machine measures the
  // machine. An unbounded endless body alone would cost the request time-out (60 s) of reading.
  it('stays bounded under a 200 MB body, an endless body and a gzip bomb: under 1 GB and 40 s of work', (t) => {
    assert.ok(tree.samples > 0);
    const measured = `peak ${Math.round(tree.peakRssBytes / MB)} MB, ${tree.cpuSeconds.toFixed(1)} s of processor time, ${seconds.toFixed(1)} s of wall time`;
    t.diagnostic(measured);
    assert.ok(tree.peakRssBytes < 1024 * MB, measured);
    assert.ok(tree.cpuSeconds < 40, measured);
  });

  it('writes the withdrawal answered with the huge body as outcome unknown in the ledger', () => {
    const [code] = double.hugeBodyCodes;
    assert.ok(code !== undefined);
    const outcomes = readFileSync(join(reportDir, 'ledger.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"type":"outcome"') && line.includes(code));
    assert.equal(outcomes.length, 1);
    assert.match(outcomes[0] ?? '', /"outcome":"unknown"/);
  });

  it('keeps the reports small when a token answer has 200,000 fields, and says they were capped', () => {
    assert.ok(statSync(join(reportDir, 'certification.json')).size < MB);
    assert.ok(statSync(join(reportDir, 'certification.html')).size < 2 * MB);
    assert.match(
      readFileSync(join(reportDir, 'certification.json'), 'utf8'),
      /more fields not shown \(capped at \d+\)/,
    );
  });

  it('sends a case without Accept really without it, and adds no header of its own', () => {
    const suite = double.received.filter((r) => r.path === '/auth/token' || r.path === '/pix/payment');
    const withoutAccept = suite.filter(
      (r) =>
        r.path === '/auth/token' &&
        !hasHeader(r, 'accept') &&
        hasHeader(r, 'client_id') &&
        hasHeader(r, 'cert_client'),
    );
    assert.equal(withoutAccept.length, 1);
    assert.deepEqual(
      suite.filter((r) => hasHeader(r, 'user-agent') || hasHeader(r, 'accept-encoding')),
      [],
    );
  });

  it('gives a curl line that, with your credentials in its variables, sends exactly what the suite sent', async () => {
    const received = double.received.find(
      (r) => r.path === '/auth/token' && !hasHeader(r, 'accept') && hasHeader(r, 'client_id'),
    );
    const check = run.report?.checks.find((c) => c.id === 'TOKEN-ACCEPT-MISSING') as
      { evidence?: Evidence[] } | undefined;
    const line = check?.evidence?.[0]?.reproduction;
    assert.ok(received !== undefined && line !== undefined, 'the case failed with its reproduction');
    // Run as written, by a shell, with the reader's credentials in the variables it names.
    await promisify(execFile)(
      'sh',
      ['-c', `curl() { command curl --silent --output /dev/null --max-time 10 "$@"; }\n${line}`],
      {
        env: {
          PATH: process.env.PATH ?? '',
          PIX_CLIENT_SECRET: credentials.clientSecret,
          PIX_CERT_CLIENT: credentials.certClient,
        },
      },
    );
    const byCurl = double.received.at(-1);
    assert.deepEqual(byCurl, received);
  });
});

/**
 * Webhooks that never arrived whole: headers and half a body, then the connection dropped, under a
 * flood of 10,000 deliveries to random paths of the receiver; and a body over the receiver's limit.
 * Neither may pass for a delivery, and the flood may not cost the report.
 */
describe('webhooks from a hostile provider', () => {
  const keyDir = temporaryDir('pix-hostile-key-');
  const { credentials, certFile } = clientCredentials(keyDir);
  const STRAYS = 10_000;
  const doubles: HostileDouble[] = [];
  const runs: { halfSent?: SuiteRun; oversize?: SuiteRun } = {};
  let straysAnswered = 0;

  const runWebhookTest = async (
    switches: Parameters<typeof startHostileDouble>[1],
    timeoutMs: string,
  ): Promise<{ run: SuiteRun; double: HostileDouble }> => {
    const double = await startHostileDouble(credentials, switches);
    doubles.push(double);
    const reportDir = temporaryDir('pix-hostile-webhook-');
    const run = await runSuite(
      { ...liveEnv(double, credentials, certFile, reportDir), PIX_WEBHOOK_TIMEOUT_MS: timeoutMs },
      ['--grep', '@webhook'],
    );
    return { run, double };
  };

  before(async () => {
    // The wait is long enough for the whole flood to reach the receiver while the run waits for its webhook.
    const [halfSent, oversize] = await Promise.all([
      runWebhookTest({ webhookHalfBody: true, strayDeliveries: STRAYS }, '20000'),
      runWebhookTest({ webhookOversize: true }, '1000'),
    ]);
    runs.halfSent = halfSent.run;
    runs.oversize = oversize.run;
    straysAnswered = halfSent.double.straysAnswered();
  });
  after(async () => {
    await Promise.all(doubles.map((d) => d.close()));
    for (const run of [runs.halfSent, runs.oversize])
      if (run) rmSync(run.reportDir, { recursive: true, force: true });
    rmSync(keyDir, { recursive: true, force: true });
  });

  const deliveredCheck = (run: SuiteRun | undefined): Evidence | undefined =>
    (run?.report?.checks.find((c) => c.id === 'WEBHOOK-DELIVERED') as { evidence?: Evidence[] } | undefined)
      ?.evidence?.[0];

  it('fails WEBHOOK-DELIVERED for a webhook cut after half its body, through 10,000 stray deliveries', () => {
    const run = runs.halfSent;
    assert.ok(run?.report !== undefined, run?.stderr);
    assert.equal(straysAnswered, STRAYS, 'every stray reached the receiver while the run was on');
    assert.equal(run.verdictOf('WEBHOOK-DELIVERED'), 'FAILED');
    assert.match(deliveredCheck(run)?.actual ?? '', /cut after \d+ of \d+ bytes/);
    assert.equal(run.code, 1);
    assert.deepEqual(run.report.suiteErrors, []);
    for (const name of ['certification.html', 'summary.md', 'junit.xml'])
      assert.ok(existsSync(join(run.reportDir, name)), `${name} was written`);
  });

  it("fails WEBHOOK-DELIVERED for a webhook over the receiver's limit, refused with 413", () => {
    const run = runs.oversize;
    assert.ok(run?.report !== undefined, run?.stderr);
    assert.equal(run.verdictOf('WEBHOOK-DELIVERED'), 'FAILED');
    assert.match(deliveredCheck(run)?.actual ?? '', /413/);
    assert.equal(run.code, 1);
  });
});
