/**
 * npm run certify as a command line: --help and --version answer and exit 0, and each configuration
 * mistake a new user makes stops the run with exit 2 and one line per problem, before Playwright starts
 * and before anything that could move money is sent.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { catalogue } from '../src/checks/catalogue.ts';
import { loadConfig } from '../src/config/config.ts';
import { json, routerNotFound, serve } from './support/answering-double.ts';
import { selfSigned } from './support/certificates.ts';
import { DOUBLE_CREDENTIALS } from './support/provider-double.ts';
import { TEST_PAYEE } from './support/live-env.ts';
import { assertStoppedBeforeTheRun, runSuite, stopLines, type SuiteRun } from './support/run-suite.ts';
import { ConfigError } from '../src/config/errors.ts';
import { VARIABLES } from '../src/config/variables.ts';

const ROOT = join(import.meta.dirname, '..');

function refusalOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  assert.fail('the configuration was accepted');
}

describe('certify --help and --version', { concurrency: true }, () => {
  it('--help lists the flags, every variable on its own line, the exit codes and the pass-through, exit 0', async () => {
    // A broken configuration does not hide the help.
    const run = await runSuite({ PIX_AMOUNT: 'nonsense' }, ['--help']);
    assert.equal(run.code, 0, run.stderr);
    for (const flag of ['--baseline', '--list', '--help', '--version'])
      assert.match(run.stdout, new RegExp(`^  ${flag}`, 'm'));
    for (const name of VARIABLES) {
      assert.equal(run.stdout.split('\n').filter((line) => line.startsWith(`  ${name} `)).length, 1, name);
    }
    assert.match(run.stdout, /^Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 /m);
    assert.match(run.stdout, /Playwright's own options pass through: --grep/);
    // A clone names its npm scripts.
    assert.match(run.stdout, /^Usage: npm run certify -- /);
  });

  it('--version prints the suite, spec and Playwright versions, exit 0', async () => {
    const run = await runSuite({}, ['--version']);
    assert.equal(run.code, 0, run.stderr);
    const read = (path: string): { version: string } =>
      JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as { version: string };
    assert.match(run.stdout, new RegExp(`^pix-withdrawal-conformance ${read('package.json').version}$`, 'm'));
    assert.match(run.stdout, /^spec openapi\/pix-withdrawal\.yaml 1\.0\.0 \(sha256 [0-9a-f]{12}\)$/m);
    const playwright = read('node_modules/@playwright/test/package.json').version;
    assert.match(run.stdout, new RegExp(`^Playwright ${playwright.replaceAll('.', '\\.')}$`, 'm'));
  });
});

/** The listed checks, by id: level, clause, title and tags as the listing shows them. */
function listed(run: SuiteRun): Map<string, { level: string; clause: string; tags: string[] }> {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.report, undefined, 'a listing writes no report');
  assert.match(run.stdout, /Listed only: nothing was sent and no report was written\.\n$/);
  const rows = new Map<string, { level: string; clause: string; tags: string[] }>();
  const definitions = new Map(catalogue('provider').map((c) => [c.id, c]));
  for (const line of run.stdout.split('\n')) {
    const id = /^ {2}([A-Z0-9-]+) {2,}/.exec(line)?.[1];
    const check = id === undefined ? undefined : definitions.get(id);
    if (id === undefined || check === undefined) continue;
    const rest = line.slice(line.indexOf(check.title) + check.title.length).trim();
    // The level the run reports: a must check that only warns where the document is ambiguous says so.
    const level = check.ambiguous === undefined ? check.level : `${check.level} (${check.ambiguous})`;
    assert.match(
      line,
      new RegExp(` ${level.replace(/[()]/g, '\\$&')} +${check.clause.replace(/[()]/g, '\\$&')} +`),
      line,
    );
    rows.set(id, { level: check.level, clause: check.clause, tags: rest.split(' ') });
  }
  return rows;
}

describe(
  'certify --list: the checks of the selected tests, nothing sent, no report',
  { concurrency: true },
  () => {
    it('honours --grep with a tag: the webhook checks, with the tags of the tests that judge them', async () => {
      const rows = listed(await runSuite({}, ['--list', '--grep', '@webhook']));
      assert.ok(rows.has('WEBHOOK-DELIVERED'));
      assert.ok(rows.get('WEBHOOK-DELIVERED')?.tags.includes('@webhook'));
      assert.ok(!rows.has('TOKEN-ISSUED'), 'a check no webhook test judges is not listed');
      for (const [id, row] of rows) assert.ok(row.tags.includes('@webhook'), id);
    });

    it('honours --grep-invert', async () => {
      const rows = listed(await runSuite({}, ['--list', '--grep-invert', '@webhook']));
      assert.ok(!rows.has('WEBHOOK-DELIVERED'));
      assert.ok(rows.has('TOKEN-ISSUED'));
    });

    it('honours --shard: two shards list every check between them, each fewer', async () => {
      const [first, second] = await Promise.all(
        ['1/2', '2/2'].map(async (shard) => listed(await runSuite({}, ['--list', '--shard', shard]))),
      );
      const all = catalogue('provider').map((c) => c.id);
      assert.deepEqual(new Set([...(first?.keys() ?? []), ...(second?.keys() ?? [])]), new Set(all));
      assert.ok((first?.size ?? 0) < all.length && (second?.size ?? 0) < all.length);
    });

    it('against a live target, sends nothing: no preflight, no token request', async (t) => {
      const double = await serve(routerNotFound);
      t.after(() => double.close());
      const rows = listed(
        await runSuite({ PIX_BASE_URL: double.url, ...DOUBLE_CREDENTIALS, ...TEST_PAYEE }, ['--list']),
      );
      assert.equal(rows.size, catalogue('provider').length);
      assert.deepEqual(double.received, []);
    });
  },
);

describe('certify stops on a configuration mistake, exit 2, one line each', { concurrency: true }, () => {
  it('PIX_BASE_URL empty with credentials and payouts set: no quiet mock run', async () => {
    const run = await runSuite({ PIX_BASE_URL: '', ...DOUBLE_CREDENTIALS, ...TEST_PAYEE });
    assertStoppedBeforeTheRun(run);
    const [line, ...more] = stopLines(run);
    assert.deepEqual(more, []);
    assert.match(
      line ?? '',
      /^PIX_BASE_URL: is empty, but PIX_CLIENT_ID, .*PIX_ALLOW_PAYOUTS are set, which only a provider uses/,
    );
  });

  it('every missing or unknown variable at once, as loadConfig finds them', async () => {
    const env = { PIX_BASE_URL: 'https://api.example.com', PIX_ALLOW_PAYOUTS: '1', PIX_AMONT: '1' };
    const run = await runSuite(env);
    assertStoppedBeforeTheRun(run);
    const expected = refusalOf(env);
    assert.ok(expected.problems.length >= 8, 'the typo, three credentials and four payee variables');
    assert.deepEqual(
      stopLines(run),
      expected.problems.map((p) => p.line),
    );
  });

  it('a base URL with a wrong path: no FAILED checks blaming the provider, and no credential sent', async (t) => {
    const double = await serve(routerNotFound);
    t.after(() => double.close());
    const run = await runSuite({ PIX_BASE_URL: `${double.url}/wrong`, ...DOUBLE_CREDENTIALS, ...TEST_PAYEE });
    assertStoppedBeforeTheRun(run);
    assert.deepEqual(stopLines(run).length, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `PIX_BASE_URL: nothing of this interface answers at ${double.url}/wrong: POST ${double.url}/wrong/auth/token got 404`,
      ),
    );
    assert.ok(double.received.length <= 2, 'the probe, and the made-up path it is compared with');
    for (const secret of Object.values(DOUBLE_CREDENTIALS))
      assert.ok(!JSON.stringify(double.received).includes(secret), 'no credential left the machine');
  });

  it('credentials the provider refuses: the preflight, one token request, and nothing after it', async (t) => {
    // pix-certify checks the environment while Playwright loads beside it: the workers must still wait,
    // also for a refusal that comes after Playwright has loaded (the credentials' answer, 2.5 s late).
    let answered = 0;
    const double = await serve((_path, res) => {
      answered += 1;
      const refuse = (): void => json(res, 403, { error: 'forbidden' });
      if (answered === 2) setTimeout(refuse, 2_500);
      else refuse();
    });
    t.after(() => double.close());
    const run = await runSuite({ PIX_BASE_URL: double.url, ...DOUBLE_CREDENTIALS, ...TEST_PAYEE });
    assertStoppedBeforeTheRun(run);
    assert.deepEqual(stopLines(run).length, 1);
    assert.match(
      run.stderr,
      /PIX_CLIENT_ID: a token request with PIX_CLIENT_ID and PIX_CERT_CLIENT .* was refused: 403/,
    );
    assert.deepEqual(
      double.received.map(
        (r) => `${r.method} ${r.path} ${r.headers.client_id === undefined ? 'without' : 'with'} client_id`,
      ),
      ['POST /auth/token without client_id', 'POST /auth/token with client_id'],
    );
  });

  it('an untrusted, self-signed certificate', async (t) => {
    const double = await serve(routerNotFound, selfSigned());
    t.after(() => double.close());
    const run = await runSuite({ PIX_BASE_URL: double.url, ...DOUBLE_CREDENTIALS });
    assertStoppedBeforeTheRun(run);
    assert.deepEqual(stopLines(run).length, 1);
    assert.match(
      run.stderr,
      /PIX_CA_FILE: the certificate of 127\.0\.0\.1 is not trusted \(self-signed.*set PIX_CA_FILE to its certificate/,
    );
    assert.deepEqual(double.received, [], 'nothing is sent over an unverified connection');
  });
});
