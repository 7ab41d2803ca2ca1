/**
 * The rules of src/report/build.ts that the reporter tests leave open, on inputs built here: which
 * tests are suite errors and how their messages are kept, what evidence and observations carry,
 * the run's verdict and exit code at each edge (strict, PIX_REQUIRE_COMPLETE, PIX_FAIL_ON_DRIFT), the
 * catalogue's hash, the run's times and what is reported only when given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildCertification,
  clauseTokens,
  withPacesWatched,
  withTokensStopped,
  withRefusalsWatched,
  withRootCauses,
  type CertificationInput,
} from '../src/report/build.ts';
import { acceptedCode, watchedPaces, watchedRefusals } from '../src/report/withdrawals.ts';
import type { TestOutcome } from '../src/report/model.ts';
import type { CheckDefinition, Evaluation } from '../src/checks/vocabulary.ts';
import { RUN_METADATA } from './support/certification.ts';

const check = (id: string, level: CheckDefinition['level'] = 'must'): CheckDefinition => ({
  id,
  title: `title of ${id}`,
  clause: '§4.1',
  level,
  reason: `reason of ${id}`,
  remedy: `remedy of ${id}`,
  needs: [],
});

const test = (
  title: string,
  evaluations: Evaluation[],
  status: TestOutcome['status'] = 'passed',
  errors: string[] = [],
): TestOutcome => ({
  titlePath: ['mock', 'a.spec.ts', title],
  status,
  durationMs: 10,
  errors,
  evaluations,
  observations: [],
});

const passedAll = (ids = ['A', 'B']) => [
  test(
    't',
    ids.map((checkId) => ({ checkId, verdict: 'PASSED' as const })),
  ),
];

function certify(tests: TestOutcome[], overrides: Partial<CertificationInput> = {}) {
  return buildCertification({
    checks: [check('A'), check('B')],
    clauses: { '§4.1': 'Create token' },
    metadata: RUN_METADATA,
    tests,
    suiteErrors: [],
    startTime: new Date('2026-01-02T03:04:05.000Z'),
    durationMs: 1500,
    ...overrides,
  });
}

describe('the tests that are suite errors', () => {
  it('a test interrupted or timed out without a FAILED check, with its errors one per line', () => {
    for (const status of ['interrupted', 'timedOut', 'failed'] as const) {
      const report = certify([
        test('broke', [{ checkId: 'A', verdict: 'PASSED' }], status, ['first', 'second']),
      ]);
      assert.deepEqual(
        report.suiteErrors,
        [{ test: 'mock › a.spec.ts › broke', message: 'first\nsecond' }],
        status,
      );
      assert.equal(report.verdict, 'ERROR', status);
      assert.equal(report.exitCode, 2, status);
    }
  });

  it('says how the test ended when it gave no error', () => {
    const report = certify([...passedAll(), test('quiet', [], 'timedOut')]);
    assert.deepEqual(report.suiteErrors, [
      { test: 'mock › a.spec.ts › quiet', message: 'the test ended timedOut' },
    ]);
  });

  it('keeps a message of 2000 characters whole and cuts a longer one to 2000 with an ellipsis', () => {
    const whole = certify([...passedAll(), test('long', [], 'failed', ['m'.repeat(2000)])]);
    assert.equal(whole.suiteErrors[0]?.message, 'm'.repeat(2000));
    const cut = certify([...passedAll(), test('longer', [], 'failed', ['m'.repeat(2500)])]);
    assert.equal(cut.suiteErrors[0]?.message, `${'m'.repeat(1999)}…`);
  });

  it('names, for a check no test judged, only the tests skipped before recording any check', () => {
    const report = certify([
      test('judged A', [{ checkId: 'A', verdict: 'PASSED' }]),
      test('silent', [], 'skipped'),
      test('passed, judging nothing', []),
      test('skipped, judging A', [{ checkId: 'A', verdict: 'SKIPPED', reason: 'why' }], 'skipped'),
    ]);
    assert.equal(
      report.suiteErrors[0]?.message,
      'no test of this run judged the check B, though the whole suite ran and no test broke: a test skipped without recording the checks it judges (mock › a.spec.ts › silent), a test.only, or a check without a test (src/checks/catalogue.ts).',
    );
  });
});

describe('what a check result and an observation carry', () => {
  it('evidence holds only the fields an evaluation gave', () => {
    const report = certify([
      test('t', [
        { checkId: 'A', verdict: 'WARNING', expected: 'e' },
        { checkId: 'A', verdict: 'WARNING', actual: 'a', reproduction: 'curl', reason: 'r' },
        { checkId: 'B', verdict: 'PASSED' },
      ]),
    ]);
    assert.deepEqual(report.checks[0]?.evidence, [
      { verdict: 'WARNING', expected: 'e' },
      { verdict: 'WARNING', actual: 'a', reproduction: 'curl', reason: 'r' },
    ]);
  });

  it('a judged check has no notJudged, and a passed one no evidence', () => {
    assert.deepEqual(certify(passedAll()).checks[0], {
      id: 'A',
      title: 'title of A',
      clause: '§4.1',
      level: 'must',
      reason: 'reason of A',
      remedy: 'remedy of A',
      verdict: 'PASSED',
      evaluations: 1,
      durationMs: 10,
    });
  });

  it('an observation has a note only when it was given one', () => {
    const observed: TestOutcome = {
      ...test('t', [
        { checkId: 'A', verdict: 'PASSED' },
        { checkId: 'B', verdict: 'PASSED' },
      ]),
      observations: [
        { topic: 'b', clause: '§6', value: 1 },
        { topic: 'a', clause: '§6', value: 2, note: 'n' },
      ],
    };
    assert.deepEqual(certify([observed]).observations, [
      { topic: 'a', clause: '§6', value: 2, note: 'n' },
      { topic: 'b', clause: '§6', value: 1 },
    ]);
  });

  it('reads every clause id a clause string names, §10 and §4.12 whole', () => {
    assert.deepEqual(clauseTokens('§10, §4.12 (not shown), payloads, §5'), [
      '§10',
      '§4.12',
      'payloads',
      '§5',
    ]);
  });
});

describe("the run's verdict and exit code", () => {
  const strict = { ...RUN_METADATA, strict: true };
  const requireComplete = { ...RUN_METADATA, requireComplete: true };
  const warned = [
    test('t', [
      { checkId: 'A', verdict: 'WARNING' },
      { checkId: 'B', verdict: 'PASSED' },
    ]),
  ];
  const incomplete = [test('t', [{ checkId: 'A', verdict: 'PASSED' }, { checkId: 'B', verdict: 'SKIPPED', reason: 'no payouts', lacks: ['payout'] }])]; // prettier-ignore

  it('PASSED exits 0, strict or not, complete required or not', () => {
    for (const metadata of [RUN_METADATA, strict, requireComplete]) {
      const report = certify(passedAll(), { metadata });
      assert.deepEqual([report.verdict, report.exitCode, report.counts], ['PASSED', 0, { PASSED: 2, FAILED: 0, WARNING: 0, SKIPPED: 0 }]); // prettier-ignore
    }
  });

  it('WARNING exits 1 only in strict mode', () => {
    assert.deepEqual([certify(warned).verdict, certify(warned).exitCode], ['WARNING', 0]);
    assert.equal(certify(warned, { metadata: requireComplete }).exitCode, 0);
    assert.equal(certify(warned, { metadata: strict }).exitCode, 1);
  });

  it('INCOMPLETE exits 1 in strict mode or when a complete run is required', () => {
    assert.deepEqual([certify(incomplete).verdict, certify(incomplete).exitCode], ['INCOMPLETE', 0]);
    assert.equal(certify(incomplete, { metadata: strict }).exitCode, 1);
    assert.equal(certify(incomplete, { metadata: requireComplete }).exitCode, 1);
  });

  it('fails on drift only with PIX_FAIL_ON_DRIFT and at least one regression', () => {
    const baseline = certify(passedAll());
    const same = certify(passedAll(), { baseline: { certification: baseline, failOnDrift: true } });
    assert.deepEqual([same.changes?.regressions, same.exitCode], [0, 0]);
    const drifted = certify(warned, { baseline: { certification: baseline, failOnDrift: true } });
    assert.deepEqual([drifted.verdict, drifted.changes?.regressions, drifted.exitCode], ['WARNING', 1, 1]);
    const told = certify(warned, { baseline: { certification: baseline, failOnDrift: false } });
    assert.deepEqual([told.changes?.failOnDrift, told.exitCode], [false, 0]);
    assert.equal('changes' in certify(passedAll()), false);
  });
});

describe('the run as reported', () => {
  it('ends the duration after it started, and names the environment only when it has a name', () => {
    const report = certify(passedAll());
    assert.deepEqual([report.run.startTime, report.run.endTime, report.run.durationMs], ['2026-01-02T03:04:05.000Z', '2026-01-02T03:04:06.500Z', 1500]); // prettier-ignore
    assert.equal('environmentName' in report.run, false);
    assert.equal(certify(passedAll(), { metadata: { ...RUN_METADATA, environmentName: 'Sandbox' } }).run.environmentName, 'Sandbox'); // prettier-ignore
  });

  it("hashes the catalogue as it judges: the same checks give the same hash, a check's level another", () => {
    const hash = (checks: CheckDefinition[]) => certify(passedAll(), { checks }).run.catalogueHash;
    assert.match(hash([check('A'), check('B')]) ?? '', /^[0-9a-f]{64}$/);
    assert.equal(hash([check('A'), check('B')]), hash([check('A'), check('B')]));
    assert.notEqual(hash([check('A'), check('B')]), hash([check('A'), check('B', 'should')]));
    assert.notEqual(hash([check('A'), check('B')]), hash([check('A'), { ...check('B'), remedy: 'another' }]));
  });

  it('carries the withdrawals only when the ledger gave them', () => {
    const withdrawals = {
      ledger: 'reports/ledger.jsonl',
      sent: 1,
      outcomes: { accepted: 1, refused: 0, 'rate-limited': 0, unknown: 0, 'not-sent': 0 },
      unknown: [],
    };
    assert.deepEqual(certify(passedAll(), { withdrawals }).withdrawals, withdrawals);
    assert.equal('withdrawals' in certify(passedAll()), false);
  });
});

describe('one root cause, one finding', () => {
  const failedWith = (checkId: string, answered: number): Evaluation => ({
    checkId,
    verdict: 'FAILED',
    answered,
    expected: 'served or refused, not a server error',
    actual: `${answered}`,
  });
  const judged = (...evaluations: Evaluation[]) => ({ evaluations, durationMs: 1 });
  const checks = [
    { id: 'PAYMENT-ACCEPTED' },
    { id: 'PAYMENT-ACCEPT-MISSING', variantOf: 'PAYMENT-ACCEPTED' },
    { id: 'PAYMENT-ACCEPT-NOT-JSON', variantOf: 'PAYMENT-ACCEPTED' },
  ] as CheckDefinition[];

  it('skips a variant of the valid request that got the same server error, naming the check that found it', () => {
    const result = withRootCauses(
      new Map([
        ['PAYMENT-ACCEPTED', judged(failedWith('PAYMENT-ACCEPTED', 500))],
        ['PAYMENT-ACCEPT-MISSING', judged(failedWith('PAYMENT-ACCEPT-MISSING', 500))],
        ['PAYMENT-ACCEPT-NOT-JSON', judged(failedWith('PAYMENT-ACCEPT-NOT-JSON', 503))],
      ]),
      checks,
      '2026-01-01T00:00:00.000Z',
    );
    assert.equal(result.get('PAYMENT-ACCEPTED')?.evaluations[0]?.verdict, 'FAILED');
    assert.deepEqual(result.get('PAYMENT-ACCEPT-MISSING')?.evaluations, [
      {
        checkId: 'PAYMENT-ACCEPT-MISSING',
        answered: 500,
        verdict: 'SKIPPED',
        reason:
          'not judged: answered 500, as the valid request itself was, so the header this request changed shows nothing; see PAYMENT-ACCEPTED',
        blockedBy: {
          answer: 'the valid request answered 500',
          at: '2026-01-01T00:00:00.000Z',
          check: 'PAYMENT-ACCEPTED',
        },
      },
    ]);
    // Another server error than the valid request's is the change's own finding.
    assert.equal(result.get('PAYMENT-ACCEPT-NOT-JSON')?.evaluations[0]?.verdict, 'FAILED');
  });

  it('keeps every finding when the valid request did not fail with a server error', () => {
    const result = withRootCauses(
      new Map([
        ['PAYMENT-ACCEPTED', judged({ checkId: 'PAYMENT-ACCEPTED', verdict: 'PASSED', answered: 200 })],
        ['PAYMENT-ACCEPT-MISSING', judged(failedWith('PAYMENT-ACCEPT-MISSING', 500))],
      ]),
      checks,
      '2026-01-01T00:00:00.000Z',
    );
    assert.equal(result.get('PAYMENT-ACCEPT-MISSING')?.evaluations[0]?.verdict, 'FAILED');
  });
});

describe('one finding for a failure another check already holds (subsumedBy)', () => {
  const checks = [
    { id: 'CHECK-CODE-TRUE-REFUSES-DUPLICATE' },
    { id: 'CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE', subsumedBy: 'CHECK-CODE-TRUE-REFUSES-DUPLICATE' },
  ] as CheckDefinition[];
  const judgedAs = (immediate: Evaluation['verdict']) =>
    new Map([
      [
        'CHECK-CODE-TRUE-REFUSES-DUPLICATE',
        {
          evaluations: [{ checkId: 'CHECK-CODE-TRUE-REFUSES-DUPLICATE', verdict: immediate }],
          durationMs: 1,
        },
      ],
      [
        'CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE',
        {
          evaluations: [
            { checkId: 'CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE', verdict: 'FAILED' as const, answered: 200 },
          ],
          durationMs: 1,
        },
      ],
    ]);

  it("skips the later duplicate's FAILED, naming the immediate duplicate that FAILED", () => {
    const result = withRootCauses(judgedAs('FAILED'), checks, '2026-01-01T00:00:00.000Z');
    const later = result.get('CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE')?.evaluations[0];
    assert.equal(later?.verdict, 'SKIPPED');
    assert.equal(later.blockedBy?.check, 'CHECK-CODE-TRUE-REFUSES-DUPLICATE');
    assert.match(later.reason ?? '', /CHECK-CODE-TRUE-REFUSES-DUPLICATE FAILED already/);
  });

  it("keeps the later duplicate's FAILED when the immediate one passed: a memory that expires", () => {
    const result = withRootCauses(judgedAs('PASSED'), checks, '2026-01-01T00:00:00.000Z');
    assert.equal(result.get('CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE')?.evaluations[0]?.verdict, 'FAILED');
  });
});

describe("WEBHOOK-RETRY-PACE over the whole run: every withdrawal's attempts until the run ended", () => {
  const ID = 'WEBHOOK-RETRY-PACE';
  const judgedAs = (...verdicts: Evaluation['verdict'][]) =>
    new Map([[ID, { evaluations: verdicts.map((verdict) => ({ checkId: ID, verdict })), durationMs: 1 }]]);
  // A provider that posts every 1.5 s whatever the answer: 3 attempts in the test's wait, 7 by the run's end.
  const storm = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      seq: i + 1,
      path: '/hook/first',
      receivedAt: 1_500 * i,
      answeredStatus: 200,
      outcome: 'matched' as const,
    }));

  it('adds one warning naming the withdrawal whose attempts crowded, when its test found nothing', () => {
    const evaluations =
      withPacesWatched(judgedAs('PASSED'), [
        { code: 'C-1', attempts: storm(7) },
        { code: 'C-2', attempts: storm(2) },
      ]).get(ID)?.evaluations ?? [];
    assert.deepEqual(
      evaluations.map((e) => e.verdict),
      ['PASSED', 'WARNING'],
    );
    assert.match(
      evaluations[1]?.actual ?? '',
      /^withdrawal C-1: 7 attempts within 10 s: the attempts at \/hook\/first arrived at \+0 ms 200, \+1500 ms 200/,
    );
  });

  it('changes nothing at a sane pace, where its test already warned, or where it was not judged', () => {
    const calm = [{ code: 'C-1', attempts: storm(3) }];
    assert.equal(withPacesWatched(judgedAs('PASSED'), calm).get(ID)?.evaluations.length, 1);
    const loud = [{ code: 'C-1', attempts: storm(7) }];
    assert.deepEqual(withPacesWatched(judgedAs('PASSED', 'WARNING'), loud).get(ID)?.evaluations.length, 2);
    assert.deepEqual(
      withPacesWatched(judgedAs('SKIPPED'), loud)
        .get(ID)
        ?.evaluations.map((e) => e.verdict),
      ['SKIPPED'],
    );
    assert.equal(withPacesWatched(new Map(), loud).get(ID), undefined);
  });

  it('reads the attempts from the ledger lines of this run only, a refused withdrawal left to its own check', () => {
    const lines = [
      { type: 'webhook', runId: 'r1', code: 'C-1', webhookReceived: true, deliveries: 2, attempts: storm(2) },
      {
        type: 'webhook',
        runId: 'r1',
        code: 'C-2',
        webhookReceived: true,
        deliveries: 2,
        attempts: storm(2),
        refused: { checkId: 'X', status: 400 },
      },
      { type: 'webhook', runId: 'r1', code: 'C-3', webhookReceived: false, deliveries: 0 },
      { type: 'webhook', runId: 'r0', code: 'C-0', webhookReceived: true, deliveries: 2, attempts: storm(2) },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    assert.deepEqual(watchedPaces(lines, 'r1'), [{ code: 'C-1', attempts: storm(2) }]);
  });
});

describe('TOKEN-LIFETIME-COVERS-RENEWAL over the whole run: a token found dead with no newer one issued', () => {
  const judgedAs = (verdicts: Record<string, Evaluation['verdict']>) =>
    new Map(
      Object.entries(verdicts).map(([id, verdict]) => [
        id,
        { evaluations: [{ checkId: id, verdict }], durationMs: 1 },
      ]),
    );
  const stopped = (workedSeconds: number): TestOutcome => ({
    ...test('a withdrawal test', []),
    observations: [
      { topic: 'token.stopped-working', clause: '§5.3 (not shown)', value: { status: 401, workedSeconds } },
    ],
  });
  const LIFE = 'TOKEN-LIFETIME-COVERS-RENEWAL';

  it('adds one warning with how long each token worked, where the check found nothing', () => {
    const evaluations =
      withTokensStopped(judgedAs({ [LIFE]: 'PASSED', 'TOKEN-REUSE': 'PASSED' }), [
        stopped(4),
        stopped(6),
      ]).get(LIFE)?.evaluations ?? [];
    assert.deepEqual(
      evaluations.map((e) => e.verdict),
      ['PASSED', 'WARNING'],
    );
    assert.equal(
      evaluations[1]?.actual,
      '2 tokens refused with no newer token issued, after 4 s (401), 6 s (401); the requests went again with a new token',
    );
  });

  it('leaves the finding to the root cause: tokens that work once, or die when a newer one is issued', () => {
    for (const cause of ['TOKEN-REUSE', 'TOKEN-SURVIVES-NEWER-TOKEN'])
      assert.equal(
        withTokensStopped(
          judgedAs({ [LIFE]: 'PASSED', [cause]: cause === 'TOKEN-REUSE' ? 'FAILED' : 'WARNING' }),
          [stopped(4)],
        ).get(LIFE)?.evaluations.length,
        1,
        cause,
      );
    assert.equal(
      withTokensStopped(judgedAs({ [LIFE]: 'SKIPPED' }), [stopped(4)]).get(LIFE)?.evaluations.length,
      1,
    );
    assert.equal(
      withTokensStopped(judgedAs({ [LIFE]: 'PASSED' }), [test('quiet', [])]).get(LIFE)?.evaluations.length,
      1,
    );
  });
});

describe('WEBHOOK-NONE-FOR-REFUSED over the whole run (issue 40 item 5)', () => {
  const ID = 'WEBHOOK-NONE-FOR-REFUSED';
  const judgedAs = (verdict: Evaluation['verdict']) =>
    new Map([
      [
        ID,
        {
          evaluations: [
            { checkId: ID, verdict, ...(verdict === 'SKIPPED' ? { reason: 'not selected' } : {}) },
          ],
          durationMs: 1,
        },
      ],
    ]);
  const refusal = (code: string, checkId: string, deliveries: number) => ({
    code,
    checkId,
    status: 400,
    deliveries,
    statuses: deliveries > 0 ? ['REJECTED'] : [],
  });

  it("adds one warning naming the run's other refusals that got webhooks, its test's own left to it", () => {
    const refusals = [refusal('C-1', 'PAYMENT-BODY-AMOUNT-ZERO', 1), refusal('C-2', 'CHECK-CODE-TRUE-REFUSES-DUPLICATE', 0), refusal('C-3', ID, 1)];
    const evaluations = withRefusalsWatched(judgedAs('PASSED'), refusals).get(ID)?.evaluations ?? [];
    assert.deepEqual(evaluations.map((e) => e.verdict), ['PASSED', 'WARNING']);
    const [, warning] = evaluations;
    assert.ok(warning !== undefined);
    assert.equal(warning.expected, 'no webhook for any of the 2 refused withdrawals that named a PostBackUrl');
    assert.equal(warning.actual, '1 of them got webhooks: C-1 (PAYMENT-BODY-AMOUNT-ZERO, refused 400): a webhook reporting REJECTED');
  }); // prettier-ignore

  it('changes nothing when no other refusal got one, or when its test did not judge it', () => {
    const quiet = [refusal('C-1', 'PAYMENT-BODY-AMOUNT-ZERO', 0)];
    assert.deepEqual(withRefusalsWatched(judgedAs('PASSED'), quiet).get(ID)?.evaluations.length, 1);
    const loud = [refusal('C-1', 'PAYMENT-BODY-AMOUNT-ZERO', 1)];
    assert.deepEqual(withRefusalsWatched(judgedAs('SKIPPED'), loud).get(ID)?.evaluations.map((e) => e.verdict), ['SKIPPED']);
    assert.equal(withRefusalsWatched(new Map(), loud).get(ID), undefined);
  }); // prettier-ignore

  it('reads the refusals watched from the ledger lines of this run only', () => {
    const lines = [
      { type: 'webhook', runId: 'r1', code: 'C-1', webhookReceived: true, deliveries: 1, statuses: ['REJECTED'], refused: { checkId: 'PAYMENT-BODY-AMOUNT-ZERO', status: 400 } },
      { type: 'webhook', runId: 'r1', code: 'C-2', webhookReceived: true, deliveries: 1, statuses: ['PAID'] },
      { type: 'webhook', runId: 'r0', code: 'C-0', webhookReceived: true, deliveries: 1, refused: { checkId: 'X', status: 400 } },
    ].map((l) => JSON.stringify(l)).join('\n');
    assert.deepEqual(watchedRefusals(lines, 'r1'), [refusal('C-1', 'PAYMENT-BODY-AMOUNT-ZERO', 1)]);
  }); // prettier-ignore

  it("reads when this run first accepted a code, else its earliest accepted code, and nothing of another run's", () => {
    const lines = [
      { type: 'outcome', time: '2026-01-01T00:00:00.000Z', runId: 'r0', code: 'C-1', outcome: 'accepted' },
      { type: 'outcome', time: '2026-01-01T00:00:01.000Z', runId: 'r1', code: 'C-2', outcome: 'refused' },
      { type: 'outcome', time: '2026-01-01T00:00:02.000Z', runId: 'r1', code: 'C-3', outcome: 'accepted' },
      { type: 'outcome', time: '2026-01-01T00:00:03.000Z', runId: 'r1', code: 'C-1', outcome: 'accepted' },
      { type: 'outcome', time: '2026-01-01T00:00:04.000Z', runId: 'r1', code: 'C-1', outcome: 'accepted' },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    assert.deepEqual(acceptedCode(lines, 'r1', 'C-1'), {
      code: 'C-1',
      at: Date.parse('2026-01-01T00:00:03.000Z'),
    });
    // The first withdrawal refused (or answered 500): the run's earliest accepted code stands in for it.
    assert.deepEqual(acceptedCode(lines, 'r1', 'C-2'), {
      code: 'C-3',
      at: Date.parse('2026-01-01T00:00:02.000Z'),
    });
    assert.equal(acceptedCode(lines, 'r2', 'C-1'), undefined);
  });
});
