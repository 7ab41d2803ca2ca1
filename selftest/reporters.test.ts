/**
 * The certification reporter: its rules on a built input, its artifacts on a real Playwright run
 * of selftest/fixtures/reporter-project, and the same certification after sharding and merging.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildCertification,
  scrub,
  type Certification,
  type CertificationInput,
  type TestOutcome,
} from '../reporters/certification.ts';
import { clauseTokens, isFixableSkip, NOT_RUN_REASON } from '../reporters/certification/build.ts';
import { renderConsole } from '../reporters/certification/console.ts';
import { renderJunit } from '../reporters/certification/junit.ts';
import { renderHtml } from '../reporters/certification/html.ts';
import { renderMarkdown } from '../reporters/certification/markdown.ts';
import { certificationValidator } from '../reporters/certification/read.ts';
import type { CheckResult } from '../reporters/certification/model.ts';
import type { CheckDefinition, Evaluation, Verdict } from '../tests/_support/checks/types.ts';
import { MISSING_REASONS } from '../tests/_support/target.ts';
import {
  CANARY_SECRET,
  CANARY_TOKEN,
  FIXTURE_CHECKS,
  FIXTURE_CLAUSES,
} from './fixtures/reporter-project/catalogue.ts';

const ROOT = join(import.meta.dirname, '..');
const REPORTER = join(ROOT, 'reporters', 'certification.ts');
const FIXTURE_CONFIG = join(ROOT, 'selftest', 'fixtures', 'reporter-project', 'playwright.config.ts');
const PLAYWRIGHT = join(ROOT, 'node_modules', '.bin', 'playwright');
const PATHS = {
  html: 'reports/certification.html',
  json: 'reports/certification.json',
  markdown: 'reports/summary.md',
  junit: 'reports/junit.xml',
};

const validate = certificationValidator();

function assertValid(report: Certification): void {
  assert.ok(validate(report), JSON.stringify(validate.errors, null, 2));
}

const check = (id: string, clause = '§4.1', level: CheckDefinition['level'] = 'must'): CheckDefinition => ({
  id,
  title: `title of ${id}`,
  clause,
  level,
  reason: `reason of ${id}`,
  remedy: `remedy of ${id}`,
  needs: [],
});

const outcome = (
  evaluations: Evaluation[],
  status: TestOutcome['status'] = 'passed',
  errors: string[] = [],
): TestOutcome => ({
  titlePath: [
    'mock',
    'tests/auth-token/token.spec.ts',
    `a test with ${evaluations.map((e) => e.checkId).join(', ') || 'nothing'}`,
  ],
  status,
  errors,
  evaluations,
  observations: [],
});

const METADATA: CertificationInput['metadata'] = {
  suiteVersion: '0.1.0',
  specVersion: '1.0.0',
  specHash: 'abc123',
  mode: 'live',
  baseUrl: 'https://sandbox.example.test',
  reportDir: 'reports',
  strict: false,
  seed: 1,
  options: { allowPayouts: true, amount: '0.01' },
};

function certify(tests: TestOutcome[], overrides: Partial<CertificationInput> = {}): Certification {
  return buildCertification({
    checks: [check('A'), check('B'), check('C', '§4.2, §5.4', 'should')],
    clauses: {
      '§4.1': 'Create token',
      '§4.2': 'Create withdraw',
      '§5.4': 'Refused with 403',
      '§9': 'Versioning',
    },
    metadata: METADATA,
    tests,
    suiteErrors: [],
    startTime: new Date('2026-01-02T03:04:05.000Z'),
    durationMs: 1234,
    ...overrides,
  });
}

function checkNamed(report: Certification, id: string): CheckResult {
  const found = report.checks.find((c) => c.id === id);
  assert.ok(found, `no check ${id} in the certification`);
  return found;
}

describe('buildCertification', () => {
  it('judges a check by its worst evaluation, and one evaluated nowhere as not run', () => {
    const report = certify([
      outcome([
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'A', verdict: 'FAILED', expected: '403', actual: '200' },
        { checkId: 'B', verdict: 'SKIPPED', reason: 'the withdrawal was not accepted' },
      ]),
      outcome([
        { checkId: 'A', verdict: 'WARNING', expected: '403', actual: '400' },
        { checkId: 'B', verdict: 'PASSED' },
      ]),
    ]);
    assert.equal(checkNamed(report, 'A').verdict, 'FAILED');
    assert.equal(
      checkNamed(report, 'B').verdict,
      'PASSED',
      'PASSED in one place and SKIPPED in another is PASSED',
    );
    assert.equal(checkNamed(report, 'C').verdict, 'SKIPPED');
    assert.deepEqual(checkNamed(report, 'C').evidence, [{ verdict: 'SKIPPED', reason: NOT_RUN_REASON }]);
    assert.equal(checkNamed(report, 'A').evaluations, 3);
    assert.deepEqual(report.counts, { PASSED: 1, FAILED: 1, WARNING: 0, SKIPPED: 1 });
    assert.equal(report.verdict, 'FAILED');
    assert.equal(report.exitCode, 1);
    assertValid(report);
  });

  it('keeps WARNING over PASSED and SKIPPED, and evidence only for checks that did not pass', () => {
    const report = certify([
      outcome([
        { checkId: 'A', verdict: 'SKIPPED', reason: 'x' },
        { checkId: 'A', verdict: 'WARNING', expected: '400', actual: '200' },
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'B', verdict: 'PASSED' },
      ]),
    ]);
    const a = checkNamed(report, 'A');
    assert.equal(a.verdict, 'WARNING');
    assert.deepEqual(
      a.evidence?.map((e) => e.verdict),
      ['WARNING', 'SKIPPED'],
      'worst first',
    );
    assert.equal(checkNamed(report, 'B').evidence, undefined);
    assert.equal(report.verdict, 'WARNING');
    assert.equal(report.exitCode, 0);
  });

  it('keeps five distinct pieces of evidence and counts the rest', () => {
    const failures = Array.from({ length: 8 }, (_, i): Evaluation => ({
      checkId: 'A',
      verdict: 'FAILED',
      actual: `status ${200 + (i % 7)}`,
    }));
    const a = checkNamed(certify([outcome(failures)]), 'A');
    assert.equal(a.evidence?.length, 5);
    assert.equal(a.evidenceCount, 7, 'two identical evaluations are one piece of evidence');
  });

  it('maps every clause to the checks naming it, and lists the clauses none names', () => {
    const report = certify([outcome([{ checkId: 'C', verdict: 'PASSED' }])]);
    const covered = Object.fromEntries(
      report.coverage.clauses.map((c) => [c.clause, c.checks.map((x) => `${x.id}:${x.verdict}`)]),
    );
    assert.deepEqual(covered, {
      '§4.1': ['A:SKIPPED', 'B:SKIPPED'],
      '§4.2': ['C:PASSED'],
      '§5.4': ['C:PASSED'],
      '§9': [],
    });
    assert.deepEqual(report.coverage.uncovered, ['§9']);
  });

  it('reads clause ids from a clause string, where §5 names §5 and nothing under it', () => {
    assert.deepEqual(clauseTokens('§4.1, §5.4'), ['§4.1', '§5.4']);
    assert.deepEqual(clauseTokens('§2.1 (not shown), §6'), ['§2.1', '§6']);
    assert.deepEqual(clauseTokens('payloads, §7'), ['payloads', '§7']);
    const report = certify([], {
      checks: [check('WHOLE', '§5')],
      clauses: { '§5': 'Authentication', '§5.1': 'Obtain a token' },
    });
    assert.deepEqual(report.coverage.uncovered, ['§5.1']);
  });

  it('makes a test that broke without a FAILED check a suite error: ERROR, exit code 2', () => {
    const report = certify([
      outcome([{ checkId: 'A', verdict: 'PASSED' }]),
      outcome([{ checkId: 'B', verdict: 'PASSED' }], 'timedOut', [
        `\u001b[31mTimeout\u001b[39m; sent -H 'client_secret: ${CANARY_SECRET}'`,
      ]),
    ]);
    assert.equal(report.verdict, 'ERROR');
    assert.equal(report.exitCode, 2);
    assert.equal(report.suiteErrors.length, 1);
    assert.match(report.suiteErrors[0]?.message ?? '', /^Timeout; sent -H 'client_secret: \*\*\*/);
    assert.match(report.suiteErrors[0]?.test ?? '', /token\.spec\.ts › a test with B$/);
    assertValid(report);
  });

  it('does not count a test that failed because a check FAILED as a suite error', () => {
    const report = certify([
      outcome([{ checkId: 'A', verdict: 'FAILED' }], 'failed', ['FAILED A: expected 403; got 200']),
    ]);
    assert.deepEqual(report.suiteErrors, []);
    assert.equal(report.verdict, 'FAILED');
  });

  it('makes an evaluation of a check outside the catalogue a suite error, and FAILED still wins the verdict', () => {
    const report = certify([
      outcome([{ checkId: 'NOT-IN-CATALOGUE', verdict: 'PASSED' }]),
      outcome([{ checkId: 'A', verdict: 'FAILED' }], 'failed'),
    ]);
    assert.match(report.suiteErrors[0]?.message ?? '', /NOT-IN-CATALOGUE, which is not in the catalogue/);
    assert.equal(report.verdict, 'FAILED');
    assert.equal(report.exitCode, 1);
  });

  it('reports global errors as suite errors outside any test', () => {
    const report = certify([], {
      suiteErrors: [{ test: null, message: 'global setup: the mock did not start' }],
    });
    assert.deepEqual(report.suiteErrors, [{ test: null, message: 'global setup: the mock did not start' }]);
    assert.equal(report.exitCode, 2);
    assertValid(report);
  });

  it('fails the run on a WARNING only in strict mode', () => {
    const tests = [outcome([{ checkId: 'C', verdict: 'WARNING', actual: '200' }])];
    const lenient = certify(tests);
    const strict = certify(tests, { metadata: { ...METADATA, strict: true } });
    assert.equal(lenient.exitCode, 0);
    assert.equal(strict.verdict, 'WARNING');
    assert.equal(strict.exitCode, 1);
  });

  it('calls the certification incomplete when payouts were not allowed, and says why', () => {
    const report = certify([
      outcome([
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'B', verdict: 'SKIPPED', reason: MISSING_REASONS.payout },
        { checkId: 'C', verdict: 'SKIPPED', reason: MISSING_REASONS.payout },
      ]),
    ]);
    assert.equal(report.complete, false);
    assert.deepEqual(report.incomplete, [{ reason: MISSING_REASONS.payout, checks: ['B', 'C'] }]);
    assert.equal(report.verdict, 'PASSED');
    assertValid(report);
  });

  it('does not call it incomplete for a skip that follows from another check', () => {
    const report = certify([
      outcome([
        { checkId: 'A', verdict: 'FAILED' },
        {
          checkId: 'B',
          verdict: 'SKIPPED',
          reason: 'no access token: 401 (see TOKEN-ISSUED and TOKEN-FIELD)',
        },
        { checkId: 'C', verdict: 'PASSED' },
      ]),
    ]);
    assert.equal(report.complete, true);
  });

  it('treats every missing capability of the target as a skip the user can fix', () => {
    for (const reason of Object.values(MISSING_REASONS)) assert.ok(isFixableSkip(reason), reason);
    assert.ok(isFixableSkip(NOT_RUN_REASON));
  });

  it('keeps each observation once, sorted by topic', () => {
    const observe = (topic: string, value: string[]): TestOutcome => ({
      ...outcome([]),
      observations: [{ topic, clause: '§2.3 (not shown)', value }],
    });
    const report = certify([
      observe('token.response.fields', ['access_token']),
      observe('refusal.status', ['401']),
      observe('token.response.fields', ['access_token']),
    ]);
    assert.deepEqual(
      report.observations.map((o) => o.topic),
      ['refusal.status', 'token.response.fields'],
    );
  });
});

describe('scrub', () => {
  it('masks credential headers in curl lines, whatever the quoting', () => {
    const line = `curl -X POST 'https://h/pix/payment' -H 'client_secret: ${CANARY_SECRET}' -H "cert_client: ${CANARY_SECRET}" -H 'Authorization: Bearer ${CANARY_TOKEN}' -H 'client_id: visible-id'`;
    const out = scrub(line);
    assert.ok(!out.includes(CANARY_SECRET) && !out.includes(CANARY_TOKEN), out);
    assert.match(out, /-H 'client_secret: \*\*\*\(\d+ chars\)'/);
    assert.match(out, /-H 'Authorization: Bearer \*\*\*\(\d+ chars, …cdef\)'/);
    assert.match(out, /client_id: visible-id/, 'client_id is an identifier, not a secret');
  });

  it('masks a quote-escaped secret whole', () => {
    const out = scrub(`-H 'client_secret: it'\\''s-${CANARY_SECRET}'`);
    assert.ok(!out.includes(CANARY_SECRET), out);
  });

  it('masks Bearer tokens and JSON members anywhere, and credentials in URLs', () => {
    const out = scrub(
      `got {"access_token":"${CANARY_TOKEN}","Client_Secret":"${CANARY_SECRET}"}; Bearer ${CANARY_TOKEN}; https://user:${CANARY_SECRET}@host/x`,
    );
    assert.ok(!out.includes(CANARY_SECRET) && !out.includes(CANARY_TOKEN), out);
    assert.match(out, /https:\/\/\*\*\*@host\/x/);
  });

  it('leaves prose and masked values as they are', () => {
    const prose =
      "the Bearer token and a complete body get 200; -H 'client_secret: ***(12 chars)' -H 'Authorization: Bearer ***(40 chars, …abcd)'";
    assert.equal(scrub(prose), prose);
  });

  it('keeps canary secrets out of every artifact', () => {
    const leaky: Evaluation = {
      checkId: 'A',
      verdict: 'FAILED',
      actual: `200 {"access_token":"${CANARY_TOKEN}"}`,
      reproduction: `curl -H 'client_secret: ${CANARY_SECRET}' -H 'Authorization: Bearer ${CANARY_TOKEN}'`,
    };
    const report = certify([
      {
        ...outcome([leaky]),
        observations: [{ topic: 't', clause: '§6', value: { headers: { client_secret: CANARY_SECRET } } }],
      },
    ]);
    for (const artifact of [
      JSON.stringify(report),
      renderHtml(report),
      renderMarkdown(report, PATHS),
      renderConsole(report, PATHS),
      renderJunit(report),
    ]) {
      assert.ok(!artifact.includes(CANARY_SECRET) && !artifact.includes(CANARY_TOKEN), artifact);
    }
  });
});

describe('the artifacts', () => {
  const report = certify([
    outcome([
      {
        checkId: 'A',
        verdict: 'FAILED',
        expected: '403',
        actual: '200 <script>alert(1)</script> | *x*',
        reproduction: "curl -X POST 'https://h/auth/token'",
      },
      { checkId: 'C', verdict: 'WARNING', actual: '400' },
    ]),
  ]);

  it('the HTML loads nothing from anywhere and escapes what the environment sent', () => {
    const html = renderHtml(report);
    for (const forbidden of ['src=', 'href="http', "href='http", '@import', 'url(', '<script', '<link'])
      assert.ok(!html.includes(forbidden), forbidden);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /<header class="banner v-FAILED">\s*<p class="word">✗ FAILED<\/p>/);
    assert.match(html, /<table class="coverage">/);
    assert.match(html, /<th scope="row">§9<\/th><td>Versioning<\/td><td>no check<\/td>/);
    assert.match(html, /@media print/);
    assert.ok(
      html.indexOf('id="failed"') < html.indexOf('id="warnings"') &&
        html.indexOf('id="warnings"') < html.indexOf('id="passed"'),
    );
  });

  it('the Markdown lists the findings with their clause, escaped', () => {
    const markdown = renderMarkdown(report, PATHS);
    assert.match(markdown, /^## Pix withdrawal certification: FAILED$/m);
    assert.match(
      markdown,
      /^- \*\*FAILED\*\* `A` \(§4\.1\): 200 &lt;script&gt;alert\(1\)&lt;\/script&gt; \\\| \\\*x\\\*$/m,
    );
    assert.match(markdown, /^- \*\*WARNING\*\* `C` \(§4\.2, §5\.4\): 400$/m);
  });

  it('the console summary stays short however many checks fail', () => {
    const many = Array.from({ length: 100 }, (_, i) => check(`CHECK-${i}`));
    const failing = certify(
      [outcome(many.map((c) => ({ checkId: c.id, verdict: 'FAILED', actual: 'x\ny' })))],
      { checks: many },
    );
    const lines = renderConsole(failing, PATHS).trim().split('\n');
    assert.ok(lines.length <= 40, `${lines.length} lines`);
    assert.match(lines[0] ?? '', /^FAILED {3}CHECK-0 +§4\.1 {2}x y$/);
    assert.ok(lines.includes('… and 80 more'));
    assert.ok(lines.includes('Verdict: FAILED'));
    assert.ok(lines.includes('Reports: reports/certification.html'));
  });
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the Playwright CLI with only what the fixture needs: no PIX_* setting or step summary of the outer run leaks in. */
function playwright(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('PIX_') && name !== 'GITHUB_STEP_SUMMARY',
    ),
  );
  const child = spawn(PLAYWRIGHT, args, { cwd: ROOT, env: { ...base, ...env }, timeout: 60_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

const readReport = async (dir: string): Promise<Certification> =>
  JSON.parse(await readFile(join(dir, 'certification.json'), 'utf8')) as Certification;

const verdicts = (report: Certification): Record<string, Verdict> =>
  Object.fromEntries(report.checks.map((c) => [c.id, c.verdict]));

describe('a Playwright run with the certification reporter', () => {
  let work: string;
  let single: Run;
  let merge: Run;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'pix-reporter-'));
    const shard = (n: number): Promise<Run> =>
      playwright(['test', '-c', FIXTURE_CONFIG, `--shard=${n}/2`, '--reporter=blob'], {
        PIX_REPORT_DIR: join(work, `shard-${n}`),
        PLAYWRIGHT_BLOB_OUTPUT_DIR: join(work, `blob-${n}`),
      });
    await writeFile(join(work, 'step-summary.md'), '');
    [single] = await Promise.all([
      playwright(['test', '-c', FIXTURE_CONFIG], {
        PIX_REPORT_DIR: join(work, 'single'),
        GITHUB_STEP_SUMMARY: join(work, 'step-summary.md'),
      }),
      shard(1),
      shard(2),
    ]);
    await mkdir(join(work, 'blobs'));
    for (const n of [1, 2]) {
      for (const zip of await readdir(join(work, `blob-${n}`)))
        await copyFile(join(work, `blob-${n}`, zip), join(work, 'blobs', `${n}-${zip}`));
    }
    merge = await playwright(['merge-reports', '--reporter', REPORTER, join(work, 'blobs')], {
      PIX_REPORT_DIR: join(work, 'merged'),
    });
  });

  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('writes the JSON, HTML and Markdown reports, appends the step summary and prints the verdict', async () => {
    const dir = join(work, 'single');
    const files = await readdir(dir);
    for (const file of ['certification.json', 'certification.html', 'summary.md'])
      assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
    assert.equal(
      await readFile(join(work, 'step-summary.md'), 'utf8'),
      `${await readFile(join(dir, 'summary.md'), 'utf8')}\n`,
    );
    assert.match(single.stdout, /^FAILED {3}FIX-FAILED {3}§4\.1, §5\.4 {2}200 application\/json/m);
    assert.match(single.stdout, /^Verdict: FAILED$/m);
    assert.equal(single.code, 1, 'Playwright fails the run because a test failed');
  });

  it('judges every fixture check as the fixture intends', async () => {
    const report = await readReport(join(work, 'single'));
    assertValid(report);
    assert.deepEqual(verdicts(report), {
      'FIX-PASSED': 'PASSED',
      'FIX-PASSED-AND-SKIPPED': 'PASSED',
      'FIX-FAILED': 'FAILED',
      'FIX-WARNING': 'WARNING',
      'FIX-SKIPPED-PAYOUTS': 'SKIPPED',
      'FIX-NOT-RUN': 'SKIPPED',
    });
    assert.equal(report.verdict, 'FAILED');
    assert.equal(report.exitCode, 1);
    assert.deepEqual(report.suiteErrors, []);
    assert.equal(report.complete, false);
    assert.deepEqual(report.coverage.uncovered, ['§9']);
    assert.equal(report.observations.length, 1);
    assert.equal(report.checks.length, FIXTURE_CHECKS.length);
    assert.equal(report.coverage.clauses.length, Object.keys(FIXTURE_CLAUSES).length);
  });

  it('lets no canary secret into any artifact or the output', async () => {
    const dir = join(work, 'single');
    const texts = [
      single.stdout,
      single.stderr,
      ...(await Promise.all(
        ['certification.json', 'certification.html', 'summary.md'].map((f) => readFile(join(dir, f), 'utf8')),
      )),
    ];
    for (const text of texts) assert.ok(!text.includes(CANARY_SECRET) && !text.includes(CANARY_TOKEN));
  });

  it('gives the same certification from two merged shards as from one run', async () => {
    assert.match(merge.stdout, /^Verdict: FAILED$/m, merge.stderr);
    const [one, merged] = await Promise.all([
      readReport(join(work, 'single')),
      readReport(join(work, 'merged')),
    ]);
    assertValid(merged);
    assert.deepEqual(verdicts(merged), verdicts(one));
    assert.deepEqual(merged.counts, one.counts);
    assert.deepEqual(
      [merged.verdict, merged.exitCode, merged.complete],
      [one.verdict, one.exitCode, one.complete],
    );
    assert.deepEqual(merged.coverage, one.coverage);
    assert.deepEqual(merged.observations, one.observations);
  });
});
