/**
 * The certification reporter: its rules on a built input, its artifacts on a real Playwright run
 * of selftest/fixtures/reporter-project, and the same certification after sharding and merging.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, link, lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildCertification,
  type Certification,
  type CertificationInput,
  type TestOutcome,
} from '../reporters/certification.ts';
import { renderArtifacts } from '../reporters/certification/artifacts.ts';
import { clauseTokens } from '../src/report/build.ts';
import { renderConsole } from '../reporters/certification/console.ts';
import { renderJunit } from '../reporters/certification/junit.ts';
import { REPORT_FILES, reportDirProblem, writeAtomically } from '../src/run/report-dir.ts';
import { renderHtml } from '../reporters/certification/html.ts';
import { wrap, type Layout } from '../reporters/certification/layout.ts';
import { renderMarkdown } from '../reporters/certification/markdown.ts';
import { certificationValidator } from '../src/report/read.ts';
import { jsonText } from '../src/base/visible.ts';
import type { CheckResult } from '../src/report/model.ts';
import type { CheckDefinition, Evaluation, Verdict } from '../src/checks/vocabulary.ts';
import { Ledger } from '../src/run/ledger.ts';
import { selectionIn, selectionOfThisRun } from '../src/run/selection.ts';
import { MISSING_REASONS } from '../src/run/target.ts';
import { parseXml } from './support/xml.ts';
import { IN_PROCESS_ONLY } from './support/in-process.ts';
import {
  CANARY_SECRET,
  CANARY_TOKEN,
  FIXTURE_CHECKS,
  FIXTURE_CLAUSES,
} from './fixtures/reporter-project/catalogue.ts';
import { redact } from '../src/secrets/redact.ts';
import { verdictMeaning } from '../reporters/certification/text.ts';
import { RUN_METADATA } from './support/certification.ts';
import { temporaryDir } from './support/temporary.ts';

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

/** A plain log, as in CI. */
const LOG: Layout = { width: 100, colour: false };

const check = (
  id: string,
  clause = '§4.1',
  level: CheckDefinition['level'] = 'must',
  needs: CheckDefinition['needs'] = [],
): CheckDefinition => ({
  id,
  title: `title of ${id}`,
  clause,
  level,
  reason: `reason of ${id}`,
  remedy: `remedy of ${id}`,
  needs,
});

const outcome = (
  evaluations: Evaluation[],
  status: TestOutcome['status'] = 'passed',
  errors: string[] = [],
  durationMs = 100,
): TestOutcome => ({
  titlePath: [
    'mock',
    'tests/auth-token/token.spec.ts',
    `a test with ${evaluations.map((e) => e.checkId).join(', ') || 'nothing'}`,
  ],
  status,
  durationMs,
  errors,
  evaluations,
  observations: [],
});

function certify(tests: TestOutcome[], overrides: Partial<CertificationInput> = {}): Certification {
  return buildCertification({
    checks: [check('A'), check('B'), check('C', '§4.2, §5.4', 'should')],
    clauses: {
      '§4.1': 'Create token',
      '§4.2': 'Create withdraw',
      '§5.4': 'Refused with 403',
      '§9': 'Versioning',
    },
    metadata: RUN_METADATA,
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
  it('judges a check by its worst evaluation, and one left out of a selection as not selected', () => {
    const report = certify(
      [
        outcome([
          { checkId: 'A', verdict: 'PASSED' },
          { checkId: 'A', verdict: 'FAILED', expected: '403', actual: '200' },
          { checkId: 'B', verdict: 'SKIPPED', reason: 'the withdrawal was not accepted' },
        ]),
        outcome([
          { checkId: 'A', verdict: 'WARNING', expected: '403', actual: '400' },
          { checkId: 'B', verdict: 'PASSED' },
        ]),
      ],
      { metadata: { ...RUN_METADATA, selection: ['--grep @auth'] } },
    );
    assert.equal(checkNamed(report, 'A').verdict, 'FAILED');
    assert.equal(
      checkNamed(report, 'B').verdict,
      'PASSED',
      'PASSED in one place and SKIPPED in another is PASSED',
    );
    assert.equal(checkNamed(report, 'C').verdict, 'SKIPPED');
    assert.deepEqual(checkNamed(report, 'C').notJudged, { cause: 'selection' });
    assert.match(checkNamed(report, 'C').evidence?.[0]?.reason ?? '', /selection \(--grep @auth\) left out/);
    assert.equal(checkNamed(report, 'A').evaluations, 3);
    assert.deepEqual(report.counts, { PASSED: 1, FAILED: 1, WARNING: 0, SKIPPED: 1 });
    assert.equal(report.verdict, 'FAILED');
    assert.equal(report.exitCode, 1);
    assertValid(report);
  });

  it('says "every check was judged" only where none was SKIPPED, not where only another reading exercises one', () => {
    const checks = [check('A'), { ...check('B'), readings: 'some' as const }];
    const partly = certify(
      [
        outcome([
          { checkId: 'A', verdict: 'PASSED' },
          { checkId: 'B', verdict: 'SKIPPED', reason: 'no slow answer' },
        ]),
      ],
      { checks },
    );
    assert.equal(partly.verdict, 'PASSED');
    assert.equal(
      verdictMeaning(partly),
      'Every check this run could exercise was judged, and none failed or warned; 1 check SKIPPED, which only another reading exercises (--readings all). Exit code 0.',
    );
    const whole = certify(
      [
        outcome([
          { checkId: 'A', verdict: 'PASSED' },
          { checkId: 'B', verdict: 'PASSED' },
        ]),
      ],
      { checks },
    );
    assert.equal(verdictMeaning(whole), 'Every check was judged, and none failed or warned. Exit code 0.');
  });

  it('keeps WARNING over PASSED and SKIPPED, and evidence only for checks that did not pass', () => {
    const report = certify([
      outcome([
        { checkId: 'A', verdict: 'SKIPPED', reason: 'x' },
        { checkId: 'A', verdict: 'WARNING', expected: '400', actual: '200' },
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'B', verdict: 'PASSED' },
        { checkId: 'C', verdict: 'PASSED' },
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
      outcome([
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'C', verdict: 'PASSED' },
      ]),
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

  it('says a check went unjudged because the suite went wrong, never that --grep left it out when none was given', () => {
    const report = certify([
      outcome([{ checkId: 'A', verdict: 'PASSED' }]),
      outcome([], 'failed', ['Error: POST https://h/pix/payment got no response: Timeout 400ms exceeded.']),
    ]);
    const b = checkNamed(report, 'B');
    assert.deepEqual(b.notJudged, { cause: 'error' });
    assert.match(b.evidence?.[0]?.reason ?? '', /the suite went wrong before a test judged it/);
    for (const c of report.checks)
      assert.doesNotMatch(JSON.stringify(c.evidence ?? []), /grep|shard|selection/);
    assert.equal(report.complete, true, 'a suite error is no reason the user can remove');
    assert.equal(report.verdict, 'ERROR');
  });

  it('makes a check that no test judged, in a whole run where nothing broke, a suite error naming it', () => {
    const report = certify([
      outcome([
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'B', verdict: 'PASSED' },
      ]),
      { ...outcome([], 'skipped'), titlePath: ['mock', 'x.spec.ts', 'a silent skip'] },
    ]);
    assert.equal(report.verdict, 'ERROR');
    assert.match(report.suiteErrors[0]?.message ?? '', /no test of this run judged the check C\b/);
    assert.match(
      report.suiteErrors[0]?.message ?? '',
      /a test skipped without recording the checks it judges \(mock › x\.spec\.ts › a silent skip\)/,
    );
    assert.deepEqual(checkNamed(report, 'C').notJudged, { cause: 'error' });
  });

  it('does not count a test that failed because a check FAILED as a suite error', () => {
    const report = certify([
      outcome(
        [
          { checkId: 'A', verdict: 'FAILED' },
          { checkId: 'B', verdict: 'PASSED' },
          { checkId: 'C', verdict: 'PASSED' },
        ],
        'failed',
        ['FAILED A: expected 403; got 200'],
      ),
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
    const tests = [
      outcome([
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'B', verdict: 'PASSED' },
        { checkId: 'C', verdict: 'WARNING', actual: '200' },
      ]),
    ];
    const lenient = certify(tests);
    const strict = certify(tests, { metadata: { ...RUN_METADATA, strict: true } });
    assert.equal(lenient.exitCode, 0);
    assert.equal(strict.verdict, 'WARNING');
    assert.equal(strict.exitCode, 1);
  });

  describe('INCOMPLETE', () => {
    const payoutsOff: TestOutcome[] = [
      outcome([
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'B', verdict: 'SKIPPED', reason: MISSING_REASONS.payout, lacks: ['payout'] },
        { checkId: 'C', verdict: 'SKIPPED', reason: MISSING_REASONS.payout, lacks: ['payout'] },
      ]),
    ];

    it('is the verdict of a live run without PIX_ALLOW_PAYOUTS, never PASSED, and says why', () => {
      const report = certify(payoutsOff);
      assert.equal(report.verdict, 'INCOMPLETE');
      assert.equal(report.exitCode, 0);
      assert.equal(report.complete, false);
      assert.deepEqual(
        report.incomplete.map((i) => [i.cause, i.checks]),
        [['payout', ['B', 'C']]],
      );
      assert.match(report.incomplete[0]?.reason ?? '', /Set PIX_ALLOW_PAYOUTS=1/);
      assertValid(report);
      const properties = parseXml(renderJunit(report)).filter((e) => e.name === 'property');
      assert.deepEqual(
        properties.slice(0, 6).map((p) => [p.attributes.name, p.attributes.value]),
        [
          ['environment', 'https://sandbox.example.test'],
          ['baseUrl', 'https://sandbox.example.test'],
          ['runId', 'mhx1run'],
          ['verdict', 'INCOMPLETE'],
          ['exitCode', '0'],
          ['complete', 'false'],
        ],
      );
    });

    it('exits 1 under PIX_REQUIRE_COMPLETE=1 and under PIX_STRICT=1', () => {
      const required = certify(payoutsOff, { metadata: { ...RUN_METADATA, requireComplete: true } });
      const strict = certify(payoutsOff, { metadata: { ...RUN_METADATA, strict: true } });
      assert.deepEqual([required.verdict, required.exitCode], ['INCOMPLETE', 1]);
      assert.deepEqual([strict.verdict, strict.exitCode], ['INCOMPLETE', 1]);
    });

    it('comes before WARNING and after FAILED and ERROR', () => {
      const warned = certify([
        outcome([
          { checkId: 'A', verdict: 'WARNING', actual: '401' },
          { checkId: 'B', verdict: 'SKIPPED', reason: 'no payouts', lacks: ['payout'] },
          { checkId: 'C', verdict: 'PASSED' },
        ]),
      ]);
      assert.equal(warned.verdict, 'INCOMPLETE');
      const failed = certify([
        outcome([
          { checkId: 'A', verdict: 'FAILED', actual: '200' },
          { checkId: 'B', verdict: 'SKIPPED', reason: 'no payouts', lacks: ['payout'] },
          { checkId: 'C', verdict: 'PASSED' },
        ]),
      ]);
      assert.deepEqual([failed.verdict, failed.complete], ['FAILED', false]);
    });

    it('lists an unreachable webhook receiver, and a check no test reached because its test lacked the same', () => {
      const report = certify(
        [
          outcome([
            { checkId: 'A', verdict: 'PASSED' },
            { checkId: 'B', verdict: 'SKIPPED', reason: MISSING_REASONS.webhook, lacks: ['webhook'] },
          ]),
        ],
        {
          checks: [
            check('A'),
            check('B', '§6', 'must', ['webhook']),
            check('C', '§6', 'must', ['payout', 'webhook']),
          ],
        },
      );
      assert.deepEqual(checkNamed(report, 'C').notJudged, { cause: 'lacks', lacks: ['webhook'] });
      assert.deepEqual(
        report.incomplete.map((i) => [i.cause, i.checks]),
        [['webhook', ['B', 'C']]],
      );
      assert.match(report.incomplete[0]?.reason ?? '', /PIX_WEBHOOK_PUBLIC_URL/);
      assert.equal(report.verdict, 'INCOMPLETE');
    });

    it('comes from the capabilities an evaluation lacked, never from the wording of its reason', () => {
      const worded = certify([
        outcome([
          { checkId: 'A', verdict: 'PASSED' },
          { checkId: 'B', verdict: 'PASSED' },
          {
            checkId: 'C',
            verdict: 'SKIPPED',
            reason: 'the mock cannot tell: set PIX_BASE_URL (a provider is needed)',
          },
        ]),
      ]);
      // No lack: the wording names one, but the skip is the environment's doing.
      assert.deepEqual(
        worded.incomplete.map((i) => i.cause),
        ['environment'],
      );
      assert.deepEqual(checkNamed(worded, 'C').notJudged, { cause: 'outcome' });
      const unworded = certify([
        outcome([
          { checkId: 'A', verdict: 'PASSED' },
          { checkId: 'B', verdict: 'PASSED' },
          { checkId: 'C', verdict: 'SKIPPED', reason: 'the mock cannot tell', lacks: ['provider'] },
        ]),
      ]);
      assert.deepEqual([unworded.complete, unworded.verdict], [false, 'INCOMPLETE']);
    });

    it("is never PASSED when the environment's answers left a check unjudged, and names the first answer", () => {
      const blocked = (at: string, answer: string) => ({ answer, at, check: 'A' });
      const report = certify([
        outcome([
          { checkId: 'A', verdict: 'PASSED' },
          {
            checkId: 'B',
            verdict: 'SKIPPED',
            reason: 'no access token: the token request answered 429',
            blockedBy: blocked('2026-01-01T00:00:02.000Z', 'POST /auth/token answered 503'),
          },
          {
            checkId: 'C',
            verdict: 'SKIPPED',
            reason: 'no access token: the token request answered 429',
            blockedBy: blocked('2026-01-01T00:00:01.000Z', 'POST /auth/token answered 429'),
          },
        ]),
      ]);
      assert.equal(report.verdict, 'INCOMPLETE');
      assert.equal(report.complete, false);
      assert.deepEqual(
        report.incomplete.map((i) => [i.cause, i.checks]),
        [['environment', ['B', 'C']]],
      );
      assert.match(
        report.incomplete[0]?.reason ?? '',
        /first POST \/auth\/token answered 429 at 2026-01-01T00:00:01\.000Z, judged by A/,
      );
      assert.deepEqual(checkNamed(report, 'C').notJudged, {
        cause: 'outcome',
        blockedBy: blocked('2026-01-01T00:00:01.000Z', 'POST /auth/token answered 429'),
      });
    });

    it('stays FAILED when the answer that left checks unjudged itself breaks the document', () => {
      const report = certify([
        outcome([
          { checkId: 'A', verdict: 'FAILED', expected: '200', actual: '500' },
          { checkId: 'B', verdict: 'PASSED' },
          {
            checkId: 'C',
            verdict: 'SKIPPED',
            reason: 'no token',
            blockedBy: {
              answer: 'POST /auth/token answered 500',
              at: '2026-01-01T00:00:00.000Z',
              check: 'A',
            },
          },
        ]),
      ]);
      assert.equal(report.verdict, 'FAILED');
    });

    it('lists a --grep or --shard selection as a reason, with the selection', () => {
      const report = certify([outcome([{ checkId: 'A', verdict: 'PASSED' }])], {
        metadata: { ...RUN_METADATA, selection: ['--grep @auth', '--shard 1/2'] },
      });
      assert.deepEqual(
        report.incomplete.map((i) => [i.cause, i.checks]),
        [['selection', ['B', 'C']]],
      );
      assert.match(report.incomplete[0]?.reason ?? '', /\(--grep @auth --shard 1\/2\)/);
      assert.equal(report.verdict, 'INCOMPLETE');
    });

    it('says plainly in every summary that a mock run certifies nothing about a provider', () => {
      const report = certify(
        [
          outcome([
            { checkId: 'A', verdict: 'PASSED' },
            { checkId: 'B', verdict: 'PASSED' },
            { checkId: 'C', verdict: 'SKIPPED', reason: MISSING_REASONS.provider, lacks: ['provider'] },
          ]),
        ],
        { metadata: { ...RUN_METADATA, mode: 'mock' } },
      );
      assert.equal(report.exitCode, 0);
      for (const text of [
        renderConsole(report, PATHS, LOG),
        renderMarkdown(report, PATHS),
        renderHtml(report),
      ])
        assert.match(text.replace(/\s+/g, ' '), /certifies nothing about a provider/);
      assert.match(renderConsole(report, PATHS, LOG), /^Verdict: INCOMPLETE$/m);
    });

    it('is never shown green', () => {
      const report = certify(payoutsOff);
      assert.match(renderHtml(report), /<header class="banner v-INCOMPLETE">/);
      assert.doesNotMatch(renderHtml(report), /class="banner v-PASSED"/);
      const coloured = renderConsole(report, PATHS, { width: 100, colour: true });
      assert.ok(
        coloured.includes('Verdict: \u001b[36;1mINCOMPLETE\u001b[0m'),
        'cyan on a terminal, not green',
      );
    });
  });

  it('sums the durations of the tests that judged a check', () => {
    const report = certify([
      outcome(
        [
          { checkId: 'A', verdict: 'PASSED' },
          { checkId: 'A', verdict: 'PASSED' },
          { checkId: 'B', verdict: 'PASSED' },
        ],
        'passed',
        [],
        250,
      ),
      outcome(
        [
          { checkId: 'A', verdict: 'PASSED' },
          { checkId: 'C', verdict: 'PASSED' },
        ],
        'passed',
        [],
        1_000,
      ),
    ]);
    assert.deepEqual(
      report.checks.map((c) => [c.id, c.durationMs]),
      [
        ['A', 1_250],
        ['B', 250],
        ['C', 1_000],
      ],
    );
    const cases = parseXml(renderJunit(report)).filter((e) => e.name === 'testcase');
    assert.deepEqual(
      cases.map((c) => c.attributes.time),
      ['1.250', '0.250', '1.000'],
    );
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

describe('the selection of a run', () => {
  it('is read from the arguments of playwright test: filters kept as written, other options and their values left out', () => {
    assert.deepEqual(
      selectionIn([
        '--workers=2',
        '--grep',
        '@auth',
        '--reporter',
        'list',
        'tests/events',
        '--shard=1/2',
        '-x',
        '--retries',
        '0',
        '-G',
        '@payout',
        '--project',
        'live',
        'mock',
        '--last-failed',
      ]),
      ['--grep @auth', 'tests/events', '--shard 1/2', '-G @payout', '--project live mock', '--last-failed'],
    );
    assert.deepEqual(
      selectionIn(['--list', '--workers', '1', '--reporter=./reporters/certification.ts']),
      [],
    );
    assert.deepEqual(selectionIn(['--only-changed', 'main', '--trace', 'on']), ['--only-changed main']);
    assert.deepEqual(selectionOfThisRun(['node', 'cli.js', 'test', '-g', 'x']), ['-g x']);
    assert.deepEqual(selectionOfThisRun(['node', 'cli.js', 'merge-reports', 'blobs']), []);
  });
});

describe('redact', () => {
  it('masks credential headers in curl lines, whatever the quoting', () => {
    const line = `curl -X POST 'https://h/pix/payment' -H 'client_secret: ${CANARY_SECRET}' -H "cert_client: ${CANARY_SECRET}" -H 'Authorization: Bearer ${CANARY_TOKEN}' -H 'client_id: visible-id'`;
    const out = redact(line);
    assert.ok(!out.includes(CANARY_SECRET) && !out.includes(CANARY_TOKEN), out);
    assert.match(out, /-H 'client_secret: \*\*\*\(\d+ chars\)'/);
    assert.match(out, /-H 'Authorization: Bearer \*\*\*\(\d+ chars, …cdef\)'/);
    assert.match(out, /client_id: visible-id/, 'client_id is an identifier, not a secret');
  });

  it('masks a quote-escaped secret whole', () => {
    const out = redact(`-H 'client_secret: it'\\''s-${CANARY_SECRET}'`);
    assert.ok(!out.includes(CANARY_SECRET), out);
  });

  it('masks Bearer tokens and JSON members anywhere, and credentials in URLs', () => {
    const out = redact(
      `got {"access_token":"${CANARY_TOKEN}","Client_Secret":"${CANARY_SECRET}"}; Bearer ${CANARY_TOKEN}; https://user:${CANARY_SECRET}@host/x`,
    );
    assert.ok(!out.includes(CANARY_SECRET) && !out.includes(CANARY_TOKEN), out);
    assert.match(out, /https:\/\/\*\*\*@host\/x/);
  });

  it('leaves prose and masked values as they are', () => {
    const prose =
      "the Bearer token and a complete body get 200; -H 'client_secret: ***(12 chars)' -H 'Authorization: Bearer ***(40 chars, …abcd)'";
    assert.equal(redact(prose), prose);
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
      renderConsole(report, PATHS, LOG),
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
      { checkId: 'C', verdict: 'WARNING', expected: 'refused with 403', actual: '400' },
      { checkId: 'B', verdict: 'PASSED' },
    ]),
  ]);

  it('the HTML loads nothing from anywhere and escapes what the environment sent', () => {
    const html = renderHtml(report);
    for (const forbidden of ['src=', 'href="http', "href='http", '@import', 'url(', '<script', '<link'])
      assert.ok(!html.includes(forbidden), forbidden);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(
      html,
      /<header class="banner v-FAILED">\s*<p class="environment">https:\/\/sandbox\.example\.test<\/p>\s*<p class="word">✗ FAILED<\/p>/,
    );
    assert.match(html, /<table class="coverage">/);
    assert.match(html, /<th scope="row">§9<\/th><td>Versioning<\/td><td>no check<\/td>/);
    assert.match(html, /@media print/);
    assert.ok(
      html.indexOf('id="failed"') < html.indexOf('id="warnings"') &&
        html.indexOf('id="warnings"') < html.indexOf('id="passed"'),
    );
  });

  it('the Markdown lists each finding with its clause, what was expected and what came back, escaped', () => {
    const markdown = renderMarkdown(report, PATHS);
    assert.match(markdown, /^## https:\/\/sandbox\.example\.test: Pix withdrawal certification FAILED$/m);
    assert.match(markdown, /^- \*\*FAILED\*\* `A` title of A \(§4\.1; level must\)$/m);
    assert.match(markdown, /^ {2}- expected: 403$/m);
    assert.match(markdown, /^ {2}- actual: 200 &lt;script&gt;alert\(1\)&lt;\/script&gt; \\\| \\\*x\\\*$/m);
    assert.match(markdown, /^- \*\*WARNING\*\* `C` title of C \(§4\.2, §5\.4; level should\)$/m);
    assert.match(markdown, /^Report: reports\/certification\.html \(also .*junit\.xml\)$/m);
  });

  const longActual = `401 application/json ${'{"message":"the credentials were not accepted by the provider"} '.repeat(8)}— also a refusal the document lists (§7), but not the one it names here`;
  const findings = certify(
    [
      outcome([
        {
          checkId: 'A',
          verdict: 'WARNING',
          expected: 'refused with 403 (credential header missing)',
          actual: longActual,
        },
        {
          checkId: 'B',
          verdict: 'FAILED',
          expected: 'POST',
          actual: 'GET /hook/4f2a (application/json, 45 bytes, complete)',
        },
        { checkId: 'C', verdict: 'FAILED', expected: 'a JSON body', actual: '' },
        {
          checkId: 'C',
          verdict: 'FAILED',
          expected: 'a JSON body',
          actual: 'GET /hook (no content-type, 0 bytes):',
        },
      ]),
    ],
    { checks: [check('A', '§4.1, §5.4', 'must'), check('B', '§6'), check('C', '§7')] },
  );

  it('the console and summary.md show expected against actual in full, wrapped, never cut, no line ending in ":"', () => {
    const console = renderConsole(findings, PATHS, LOG);
    const markdown = renderMarkdown(findings, PATHS);
    for (const text of [console, markdown]) {
      assert.ok(!text.includes('…'), 'nothing is cut');
      assert.equal(
        text.replace(/\s+/g, ' ').includes(longActual.replace(/\s+/g, ' ')),
        true,
        'the whole actual',
      );
      for (const line of text.split('\n')) assert.doesNotMatch(line, /:\s*$/, `a line ends in ":": ${line}`);
    }
    for (const line of console.split('\n')) assert.ok(line.length <= LOG.width, `${line.length}: ${line}`);
    assert.match(console, /^ {9}expected {4}POST$/m, 'a webhook sent by GET says expected POST');
    assert.match(console, /^ {9}actual {6}GET \/hook\/4f2a/m);
    assert.match(markdown, /^ {2}- expected: POST$/m);
    assert.match(console, /^ {9}actual {6}\(empty\)$/m, 'an empty finding says so');
  });

  it('a WARNING of a must check shows its real level, should, because the document is ambiguous', () => {
    const warning = checkNamed(findings, 'A');
    assert.equal(warning.level, 'must');
    for (const text of [
      renderConsole(findings, PATHS, LOG),
      renderMarkdown(findings, PATHS),
      renderHtml(findings),
      renderJunit(findings),
    ])
      assert.match(
        text.replace(/\s+/g, ' '),
        /level should here, as the document is ambiguous on this point \(must where it is clear\)/,
      );
  });

  it('wraps the console to the terminal width at spaces, a long word on the next lines whole', () => {
    const narrow = renderConsole(findings, PATHS, { width: 50, colour: false });
    for (const line of narrow.split('\n')) assert.ok(line.length <= 50, `${line.length}: ${line}`);
    const token = 'x'.repeat(120);
    const long = certify(
      [outcome([{ checkId: 'A', verdict: 'FAILED', expected: 'refused', actual: `200 ${token} end` }])],
      { checks: [check('A')] },
    );
    const lines = renderConsole(long, PATHS, LOG).split('\n');
    assert.ok(lines.every((l) => l.length <= LOG.width));
    assert.ok(lines.join('').replace(/ /g, '').includes(token), 'the long word is all there');
  });

  it('groups the checks skipped for one reason under it once, in the console, summary.md and the HTML', () => {
    const reason = `the withdrawal was not accepted (403), and the webhook follows acceptance; ${'see PAYMENT-ACCEPTED '.repeat(8)}`;
    const many = Array.from({ length: 24 }, (_, i) => check(`SKIP-${i}`));
    const skipped = certify(
      [
        outcome([
          { checkId: 'A', verdict: 'FAILED', actual: '403' },
          ...many.map((c): Evaluation => ({ checkId: c.id, verdict: 'SKIPPED', reason })),
        ]),
      ],
      { checks: [check('A'), ...many] },
    );
    const once = (text: string): number => text.replace(/\s+/g, ' ').split(reason.trim()).length - 1;
    assert.equal(once(renderConsole(skipped, PATHS, LOG)), 1);
    assert.equal(once(renderMarkdown(skipped, PATHS)), 1);
    assert.equal(once(renderHtml(skipped)), 1);
    assert.match(
      renderConsole(skipped, PATHS, LOG),
      /^SKIPPED {2}24 checks: the withdrawal was not accepted/m,
    );
  });

  it('the HTML has no empty Note column for observations, and shows a note where there is one', () => {
    const observed = certify([
      {
        ...outcome([{ checkId: 'A', verdict: 'PASSED' }]),
        observations: [
          { topic: 'refusal.status.A', clause: '§5.4', value: 401 },
          {
            topic: 'webhook.delayMs',
            clause: '§6 (not shown)',
            value: 12,
            note: 'from acceptance to delivery',
          },
        ],
      },
    ]);
    const html = renderHtml(observed);
    assert.doesNotMatch(html, /<th>Note<\/th>/);
    assert.match(html, /<code>webhook\.delayMs<\/code><br>from acceptance to delivery/);
  });

  it('JUnit has one test case per check, suite errors attached to the checks they left unjudged, and parses as XML', () => {
    const broken = certify([
      outcome([{ checkId: 'A', verdict: 'PASSED' }]),
      ...Array.from({ length: 8 }, () =>
        outcome([], 'failed', [
          '\u001b[31mError: POST https://h/pix/payment got no response: Timeout 400ms exceeded.\u001b[39m\nCall log:\n  - → POST https://h/pix/payment',
        ]),
      ),
    ]);
    const elements = parseXml(renderJunit(broken));
    const cases = elements.filter((e) => e.name === 'testcase');
    assert.equal(cases.length, broken.checks.length, 'exactly one test case per check');
    const suite = elements.find((e) => e.name === 'testsuite');
    assert.deepEqual(
      [suite?.attributes.tests, suite?.attributes.errors, suite?.attributes.skipped],
      ['3', '2', '0'],
    );
    assert.equal(elements.filter((e) => e.name === 'error').length, 2);
    const systemErr = elements.find((e) => e.name === 'system-err')?.text ?? '';
    assert.equal(systemErr.split('got no response').length - 1, 1, 'the cause is told once');
    assert.match(systemErr, /^8 tests: Error: POST/);
    assert.match(systemErr, /fix: the environment did not answer within PIX_REQUEST_TIMEOUT_MS/);
  });

  it('the console tells a transport failure once per cause, with the fix, and without colour codes', () => {
    const broken = certify([
      outcome([{ checkId: 'A', verdict: 'PASSED' }]),
      ...Array.from({ length: 8 }, (_, i) =>
        outcome([], 'failed', [
          `\u001b[31mError: POST https://h/pix/payment got no response: Timeout 400ms exceeded.\u001b[39m\nCall log:\n  \u001b[2m- → POST https://h/pix/payment #${i}\u001b[22m`,
        ]),
      ),
    ]);
    const console = renderConsole(broken, PATHS, LOG);
    assert.ok(!console.includes('\u001b'), 'no escape character in a log');
    assert.equal(console.split('got no response').length - 1, 1, console);
    assert.match(console, /^ERROR {4}8 tests: Error: POST https:\/\/h\/pix\/payment got no response/m);
    assert.match(console, /^ {9}fix {9}the environment did not answer within PIX_REQUEST_TIMEOUT_MS/m);
  });

  it('the console puts the verdict, what it means and where the report is at the end', () => {
    const lines = renderConsole(report, PATHS, LOG).trim().split('\n');
    assert.ok(lines.includes('Verdict: FAILED'));
    assert.ok(lines.includes('Report:  reports/certification.html'));
    assert.match(
      lines.at(-1) ?? '',
      /^Also: {4}reports\/certification\.json, reports\/summary\.md, reports\/junit\.xml$/,
    );
  });
});

describe('a certification a person signs', () => {
  const MONEY = '# sends a real withdrawal: moves money if the environment accepts it';
  const named = certify(
    [
      outcome(
        [
          {
            checkId: 'A',
            verdict: 'FAILED',
            expected: 'refused with 401 or 403',
            actual: '200 application/json {"status":"PAID"}',
            reproduction: `${MONEY}\ncurl -i -X POST 'https://h/pix/payment' -H "client_secret: $PIX_CLIENT_SECRET"`,
          },
          { checkId: 'C', verdict: 'WARNING', expected: '403', actual: '401' },
        ],
        'passed',
        [],
        1_500,
      ),
      {
        ...outcome([{ checkId: 'A', verdict: 'PASSED' }], 'passed', [], 250),
        observations: [
          { topic: 'webhook.delayMs', clause: '§6 (not shown)', value: 12, note: 'from acceptance' },
        ],
      },
      outcome([{ checkId: 'B', verdict: 'SKIPPED', reason: 'no token was issued' }]),
    ],
    {
      checks: [check('A'), check('B'), check('C', '§4.2, §5.4', 'must')],
      metadata: { ...RUN_METADATA, environmentName: 'Provider X UAT' },
    },
  );
  const html = renderHtml(named);

  it('opens with the environment and the FAILED checks with a one-line why, before the coverage matrix', () => {
    const banner = html.slice(html.indexOf('<header class="banner'), html.indexOf('</header>'));
    assert.match(
      banner,
      /<p class="environment">Provider X UAT · <code>https:\/\/sandbox\.example\.test<\/code><\/p>/,
    );
    assert.match(
      banner,
      /<li><a href="#check-A"><code>A<\/code><\/a> title of A: expected refused with 401 or 403; got 200 application\/json \{&quot;status&quot;:&quot;PAID&quot;\}<\/li>/,
    );
    const order = [
      'class="failed-list"',
      'id="failed"',
      'id="warnings"',
      'id="skipped"',
      'id="coverage"',
      'id="observations"',
      'id="environment"',
      'id="run"',
      'id="sign-off"',
    ].map((marker) => html.indexOf(marker));
    assert.ok(
      order.every((at) => at > 0),
      `every part is there: ${order.join(', ')}`,
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      'in the order the signer reads them',
    );
    assert.ok(
      html.indexOf('check-A') < html.indexOf('<table class="coverage">'),
      'the failed id comes before the coverage matrix',
    );
  });

  it('lists the WARNING checks in the banner as it lists the FAILED ones, when none failed', () => {
    const warned = certify(
      [outcome([{ checkId: 'C', verdict: 'WARNING', expected: '403', actual: '401' }])],
      {
        checks: [check('C', '§4.2, §5.4', 'must')],
        metadata: RUN_METADATA,
      },
    );
    assert.equal(warned.verdict, 'WARNING');
    const page = renderHtml(warned);
    const banner = page.slice(page.indexOf('<header class="banner'), page.indexOf('</header>'));
    assert.match(
      banner,
      /<h2>Warnings<\/h2>\n<ul class="warning-list">\n<li><a href="#check-C"><code>C<\/code><\/a> title of C: expected 403; got 401<\/li>/,
    );
    const failedBanner = html.slice(html.indexOf('<header class="banner'), html.indexOf('</header>'));
    assert.ok(!failedBanner.includes('warning-list'), 'a FAILED banner lists the failures only');
  });

  it('names the environment first in every report and in the console', () => {
    assert.match(html, /<title>Provider X UAT: Pix withdrawal certification FAILED<\/title>/);
    assert.match(renderMarkdown(named, PATHS), /^## Provider X UAT: Pix withdrawal certification FAILED\n/);
    assert.equal(named.run.environmentName, 'Provider X UAT');
    assertValid(named);
    const properties = parseXml(renderJunit(named)).filter((e) => e.name === 'property');
    assert.deepEqual(properties[0]?.attributes, { name: 'environment', value: 'Provider X UAT' });
    assert.match(
      renderConsole(named, PATHS, LOG),
      /^Environment: Provider X UAT \(https:\/\/sandbox\.example\.test\)$/m,
    );
    const unnamed = certify([outcome([{ checkId: 'A', verdict: 'PASSED' }])]);
    assert.match(
      renderHtml(unnamed),
      /<title>https:\/\/sandbox\.example\.test: Pix withdrawal/,
      'unnamed, by its base URL',
    );
  });

  it('prints on A4 with a sign-off block no page break cuts, as no card is cut', () => {
    const style = html.slice(html.indexOf('<style>'), html.indexOf('</style>'));
    assert.match(style, /@page \{ size: A4;/);
    const print = style.slice(style.indexOf('@media print {'));
    assert.match(
      print,
      /article, tr, \.banner, \.remedy, dl\.evidence, \.sign-off \{ break-inside: avoid; \}/,
    );
    assert.match(print, /\.sign-off \{ display: block; break-before: page; \}/);
    const signOff = html.slice(
      html.indexOf('<section id="sign-off" class="sign-off">'),
      html.indexOf('</section>', html.indexOf('id="sign-off"')),
    );
    for (const fact of [
      'Provider X UAT',
      'https://sandbox.example.test',
      `version 0.1.0, checks sha256 ${named.run.catalogueHash ?? 'none'}`,
      'version 1.0.0, sha256 abc123',
      'mhx1run',
      '2026-01-02T03:04:05.000Z',
      'FAILED',
    ])
      assert.ok(signOff.includes(fact), `the sign-off names ${fact}`);
    for (const blank of ['Name', 'Role', 'Signature', 'Date'])
      assert.match(signOff, new RegExp(`<th scope="row">${blank}</th><td><span class="line"></span></td>`));
  });

  it('shows what to do with each failure and warning, in the HTML, summary.md, the console and JUnit', () => {
    for (const text of [
      html,
      renderMarkdown(named, PATHS),
      renderConsole(named, PATHS, LOG),
      renderJunit(named),
    ]) {
      assert.ok(text.includes('remedy of A'), 'the failure');
      assert.ok(text.includes('remedy of C'), 'the warning');
    }
    assert.match(renderConsole(named, PATHS, LOG), /^ {9}what to do {2}remedy of A$/m);
    assert.match(renderMarkdown(named, PATHS), /^ {2}- what to do: remedy of A$/m);
    assert.match(html, /<p class="remedy"><strong>What to do<\/strong>: remedy of A<\/p>/);
    assert.match(
      html,
      /<pre># sends a real withdrawal: moves money if the environment accepts it\ncurl/,
      'the money line heads the reproduction',
    );
  });

  it('keeps a label with its value when it wraps, so that no line ends in a colon', () => {
    const lines = wrap('aaaa bbbb webhook-id: msg_1234 and more', 22);
    assert.deepEqual(lines, ['aaaa bbbb', 'webhook-id: msg_1234', 'and more']);
  });

  it('labels the environment for a person, never with raw option keys', () => {
    const environment = html.slice(
      html.indexOf('<section id="environment">'),
      html.indexOf('</section>', html.indexOf('<section id="environment">')),
    );
    assert.match(environment, /Withdrawals allowed \(PIX_ALLOW_PAYOUTS\)<\/th><td><code>yes<\/code>/);
    assert.match(environment, /Amount of each withdrawal, BRL \(PIX_AMOUNT\)/);
    assert.doesNotMatch(environment, />allowPayouts</);
  });

  it('gives JUnit the real time of each check and the real level of a WARNING', () => {
    const cases = parseXml(renderJunit(named)).filter((e) => e.name === 'testcase');
    const time = (id: string): string | undefined =>
      cases.find((c) => c.attributes.name?.startsWith(`${id} `))?.attributes.time;
    assert.equal(time('A'), '1.750', 'the two tests that judged A');
    assert.equal(time('C'), '1.500');
    const warning = renderJunit(named).slice(renderJunit(named).indexOf('name="C title of C"'));
    assert.match(warning, /<system-out>WARNING \(level should here, as the document is ambiguous/);
  });

  it('lists what could not be tested one row per reason, with the ids, the reason never repeated', () => {
    const reason = `the embedded mock (Prism) is stateless: ${'it checks only that credentials are present '.repeat(4)}`;
    const ids = Array.from({ length: 24 }, (_, i) => `SKIP-${i}`);
    const skipped = certify(
      [
        outcome([
          ...ids.map((id): Evaluation => ({ checkId: id, verdict: 'SKIPPED', reason, lacks: ['provider'] })),
          { checkId: 'B', verdict: 'SKIPPED', reason: 'no token was issued' },
        ]),
      ],
      { checks: [check('B'), ...ids.map((id) => check(id, '§4.1', 'must', ['provider']))] },
    );
    const page = renderHtml(skipped);
    const table = page.slice(
      page.indexOf('<section id="skipped">'),
      page.indexOf('</section>', page.indexOf('<section id="skipped">')),
    );
    assert.equal(table.match(/<tr><td>/g)?.length, 2, 'one row per reason');
    assert.equal(table.split(reason.trim()).length - 1, 1, 'the reason once');
    assert.match(
      table,
      /<td>24<\/td><td><code id="check-SKIP-0" title="title of SKIP-0">SKIP-0<\/code>, <code id="check-SKIP-1"/,
    );
  });
});

describe('text from the environment in the artifacts', () => {
  const HOSTILE =
    'a\u001b[2Jb\u001b]0;owned\u0007c\u001b[8mhidden\u009b31m\r\u2028\u202edesrever\ufffe\uffff\ud800!';
  const report = certify(
    [
      {
        ...outcome([
          { checkId: 'A', verdict: 'FAILED', expected: '403', actual: `200 ${HOSTILE}` },
          { checkId: 'B', verdict: 'SKIPPED', reason: `no access token: ${HOSTILE}` },
        ]),
        observations: [{ topic: 'token.response.shape', clause: '§2.3', value: { [HOSTILE]: HOSTILE } }],
      },
      outcome([], 'failed', [`Error: ${HOSTILE}`]),
    ],
    { checks: [check('A'), check('B'), check('C')] },
  );
  // certification.json is written after the others, as jsonText makes it (certification/integrity.ts).
  const artifacts = { ...renderArtifacts(report, PATHS, LOG), json: jsonText(report) };
  // eslint-disable-next-line no-control-regex -- finding control characters is the point here.
  const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202e\ufffe\uffff\ud800-\udfff]/u;

  it('reaches no terminal and no text artifact raw: it is shown escaped, so nothing is lost', () => {
    for (const name of ['json', 'console', 'markdown', 'html', 'junit'] as const)
      assert.doesNotMatch(artifacts[name], FORBIDDEN, name);
    // Markdown escapes the backslash and the bracket of an escape once more: unescaped, it reads the same.
    const shown = { ...artifacts, markdown: artifacts.markdown.replace(/\\(.)/g, '$1') };
    for (const name of ['console', 'markdown', 'html', 'junit'] as const)
      for (const escaped of [
        '\\x1b[2J',
        '\\x1b]0;owned\\x07',
        '\\x9b31m',
        '\\x0d',
        '\\u{2028}',
        '\\u{202e}',
        '\\u{fffe}',
        '\\u{ffff}',
        '\\u{d800}',
      ])
        assert.ok(shown[name].includes(escaped), `${escaped} in ${name}`);
  });

  it('keeps the JSON exact: the same strings come back when it is parsed', () => {
    const parsed = JSON.parse(artifacts.json) as Certification;
    assert.equal(checkNamed(parsed, 'A').evidence?.[0]?.actual, `200 ${HOSTILE}`);
    assert.deepEqual(parsed.observations[0]?.value, { [HOSTILE]: HOSTILE });
  });

  it('keeps junit.xml to the XML 1.0 character set', () => {
    assert.doesNotThrow(() => parseXml(artifacts.junit));
  });
});

describe('the report directory', () => {
  let dir: string;
  before(() => {
    dir = temporaryDir('pix-report-dir-');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("may be new, empty, or hold an earlier run's reports, signature, ledger, output directory, half-written reports and the mutation run's", async () => {
    assert.equal(reportDirProblem(join(dir, 'new')), undefined);
    const earlier = join(dir, 'earlier');
    await mkdir(join(earlier, 'test-results'), { recursive: true });
    await mkdir(join(earlier, 'mutation'), { recursive: true });
    for (const name of [
      ...Object.values(REPORT_FILES),
      'certification.sig',
      'ledger.jsonl',
      '.certification.json.0123456789abcdef.tmp',
    ])
      await writeFile(join(earlier, name), '');
    assert.equal(reportDirProblem(earlier), undefined);
  });

  it('is refused in one line naming PIX_REPORT_DIR when it holds anything else, or a linked ledger', async () => {
    const home = join(dir, 'home');
    await mkdir(join(home, 'projects'), { recursive: true });
    await writeFile(join(home, 'notes.txt'), 'mine');
    await writeFile(join(home, 'certification.json'), '{}');
    const problem = reportDirProblem(home) ?? '';
    assert.match(
      problem,
      /^PIX_REPORT_DIR: .*home holds files this suite did not write \((notes\.txt, projects|projects, notes\.txt)\)\. Set PIX_REPORT_DIR/,
    );
    assert.ok(!problem.includes('\n'));
    // The link points to a real ledger: a check that followed it would find a plain file and let it through.
    const linked = join(dir, 'linked');
    await mkdir(linked);
    const elsewhere = join(dir, 'elsewhere.jsonl');
    await writeFile(elsewhere, '{"type":"intent"}\n');
    await symlink(elsewhere, join(linked, 'ledger.jsonl'));
    assert.match(
      reportDirProblem(linked) ?? '',
      /ledger\.jsonl is a symbolic link, and the ledger is never written through one/,
    );
    const dangling = join(dir, 'dangling');
    await mkdir(dangling);
    await symlink(join(dir, 'no-such-ledger.jsonl'), join(dangling, 'ledger.jsonl'));
    assert.match(
      reportDirProblem(dangling) ?? '',
      /ledger\.jsonl is a symbolic link, and the ledger is never written through one/,
      'a link to nothing is refused the same way',
    );
  });

  it('keeps the ledger from being appended to through a link, even one made during the run', async () => {
    const reports = join(dir, 'ledger-link');
    await mkdir(reports);
    const target = join(dir, 'not-a-ledger.txt');
    await writeFile(target, 'precious');
    await symlink(target, join(reports, 'ledger.jsonl'));
    const ledger = new Ledger(reports, 'run-1');
    assert.throws(
      () => ledger.outcome({ code: 'c', status: 200, outcome: 'accepted' }),
      (error: NodeJS.ErrnoException) => error.code === 'ELOOP',
    );
    assert.equal(await readFile(target, 'utf8'), 'precious');
  });

  it('gets each report whole by a rename: a linked report is replaced, never written through, and no temporary file stays', async () => {
    const reports = join(dir, 'atomic');
    await mkdir(reports);
    const target = join(dir, 'someone-elses-file');
    await writeFile(target, 'precious');
    await symlink(target, join(reports, 'certification.json'));
    await writeAtomically(join(reports, 'certification.json'), 'new');
    assert.equal(await readFile(target, 'utf8'), 'precious');
    assert.equal(await readFile(join(reports, 'certification.json'), 'utf8'), 'new');
    assert.ok(!(await lstat(join(reports, 'certification.json'))).isSymbolicLink());
    // An earlier report is replaced, not rewritten in place: whoever holds the old file still reads it whole.
    await writeFile(join(reports, 'summary.md'), 'old summary');
    await link(join(reports, 'summary.md'), join(dir, 'held-summary.md'));
    await writeAtomically(join(reports, 'summary.md'), 'new summary');
    assert.equal(await readFile(join(dir, 'held-summary.md'), 'utf8'), 'old summary');
    assert.deepEqual((await readdir(reports)).sort(), ['certification.json', 'summary.md']);
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

describe('a Playwright run with the certification reporter', { skip: IN_PROCESS_ONLY }, () => {
  let work: string;
  let single: Run;
  let merge: Run;
  let listed: Run;
  let matchedNothing: Run;
  const EARLIER = '{"an earlier certification":true}\n';

  before(async () => {
    work = temporaryDir('pix-reporter-');
    const earlier = join(work, 'earlier');
    await mkdir(earlier);
    await writeFile(join(earlier, 'certification.json'), EARLIER);
    const shard = (n: number): Promise<Run> =>
      playwright(['test', '-c', FIXTURE_CONFIG, `--shard=${n}/2`, '--reporter=blob'], {
        PIX_REPORT_DIR: join(work, `shard-${n}`),
        PLAYWRIGHT_BLOB_OUTPUT_DIR: join(work, `blob-${n}`),
      });
    await writeFile(join(work, 'step-summary.md'), '');
    [single, , , listed, matchedNothing] = await Promise.all([
      playwright(['test', '-c', FIXTURE_CONFIG], {
        PIX_REPORT_DIR: join(work, 'single'),
        GITHUB_STEP_SUMMARY: join(work, 'step-summary.md'),
      }),
      shard(1),
      shard(2),
      playwright(['test', '-c', FIXTURE_CONFIG, '--list'], { PIX_REPORT_DIR: earlier }),
      playwright(['test', '-c', FIXTURE_CONFIG, '--grep', 'no such test'], { PIX_REPORT_DIR: earlier }),
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
    assert.match(single.stdout, /^FAILED {3}FIX-FAILED · §4\.1, §5\.4 · level must$/m);
    assert.match(single.stdout, /^ {9}actual {6}200 application\/json/m);
    assert.match(single.stdout, /^Verdict: FAILED$/m);
    assert.equal(single.code, 1, 'Playwright fails the run because a test failed');
  });

  it("prints a broken test's error line with its terminal escapes shown, never obeyed", () => {
    for (const run of [single, merge]) {
      assert.ok(!run.stdout.includes('\u001b') && !run.stdout.includes('\u0007'), run.stdout);
      assert.match(
        run.stdout,
        /^ +Error: FAILED FIX-FAILED: expected status 401 or 403; got 200 \\x1b\[2J\\x1b\]0;owned\\x07$/m,
      );
    }
  });

  it("writes only the reports in the report directory, Playwright's output elsewhere, and JUnit one case per check", async () => {
    const dir = join(work, 'single');
    assert.deepEqual((await readdir(dir)).sort(), [
      'certification.html',
      'certification.json',
      'junit.xml',
      'summary.md',
    ]);
    const cases = parseXml(await readFile(join(dir, 'junit.xml'), 'utf8')).filter(
      (e) => e.name === 'testcase',
    );
    assert.equal(cases.length, FIXTURE_CHECKS.length);
  });

  it('writes no certification for a run that ran no test (--list, a --grep that matches nothing), and leaves the earlier one', async () => {
    const earlier = join(work, 'earlier');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^\d+ tests; --list runs none of them\.$/m);
    assert.match(
      matchedNothing.stderr,
      /^certification: none written, because no test ran: no test matches this run's selection \(--grep no such test\)\./m,
    );
    assert.equal(await readFile(join(earlier, 'certification.json'), 'utf8'), EARLIER);
    assert.deepEqual(await readdir(earlier), ['certification.json']);
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
    assert.deepEqual(
      report.incomplete.map((i) => [i.cause, i.checks]),
      [['payout', ['FIX-SKIPPED-PAYOUTS', 'FIX-NOT-RUN']]],
    );
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
