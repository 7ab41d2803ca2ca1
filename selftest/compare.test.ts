/**
 * Regression against a baseline: the pure comparison on small hand-built certifications, and npm run
 * compare on them. The real suite run against the sandbox with a baseline: selftest/slow/baseline.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildCertification } from '../src/report/build.ts';
import { compareCertifications, lateDelayMs, unchanged } from '../src/report/compare.ts';
import { renderChanges, renderConsole } from '../reporters/certification/console.ts';
import { renderHtml } from '../reporters/certification/html.ts';
import { renderMarkdown } from '../reporters/certification/markdown.ts';
import type { Certification, CheckChange, ObservationChange } from '../src/report/model.ts';
import { readCertification, UnreadableCertification } from '../src/report/read.ts';
import { changesHeadline, verdictChangeNotice } from '../reporters/certification/text.ts';
import type { Verdict } from '../src/checks/vocabulary.ts';
import { certificationValidator } from '../src/report/read.ts';
import { npmRunCompare } from './support/compare-command.ts';
import { certification, RUN, type Sketch } from './support/certification.ts';
import type { JsonValue } from '../src/base/json.ts';
import { temporaryDir } from './support/temporary.ts';

const PATHS = {
  html: 'certification.html',
  json: 'certification.json',
  markdown: 'summary.md',
  junit: 'junit.xml',
};

const validate = certificationValidator();

function assertValid(report: unknown): void {
  assert.ok(validate(report), JSON.stringify(validate.errors, null, 2));
}

const observationChanges = (before: Sketch, after: Sketch): readonly ObservationChange[] =>
  compareCertifications(certification(before), certification(after)).observations;

const TOKEN_SHAPE = { access_token: 'string', token_type: 'string', expires_in: 'number' };

describe('compareCertifications', () => {
  it('says "no change" for identical certifications', () => {
    const report = certification({
      checks: { A: 'PASSED', B: 'WARNING' },
      observations: [
        ['token.response.shape', TOKEN_SHAPE],
        ['refusal.status.A', 403],
        ['webhook.delayMs', 12],
      ],
    });
    const comparison = compareCertifications(report, structuredClone(report));
    assert.deepEqual([comparison.checks, comparison.observations, comparison.run], [[], [], []]);
    assert.equal(comparison.regressions, 0);
    assert.match(changesHeadline(comparison), /^No change since the baseline of 2026-01-05T09:00:00.000Z/);
  });

  it('tells improved, regressed, new, removed, no longer judged and judged again checks apart, regressions first', () => {
    const comparison = compareCertifications(
      certification({
        checks: {
          IMPROVES: 'WARNING',
          REGRESSES: 'PASSED',
          GONE: 'PASSED',
          NOW_SKIPPED: 'PASSED',
          WORSE: 'WARNING',
          JUDGED: 'SKIPPED',
        },
      }),
      certification({
        checks: {
          IMPROVES: 'PASSED',
          REGRESSES: 'WARNING',
          NOW_SKIPPED: 'SKIPPED',
          WORSE: 'FAILED',
          JUDGED: 'FAILED',
          ADDED: 'PASSED',
        },
      }),
    );
    const expected: CheckChange[] = [
      { id: 'REGRESSES', kind: 'regressed', before: 'PASSED', after: 'WARNING', regression: true },
      { id: 'WORSE', kind: 'regressed', before: 'WARNING', after: 'FAILED', regression: true },
      { id: 'IMPROVES', kind: 'improved', before: 'WARNING', after: 'PASSED', regression: false },
      { id: 'NOW_SKIPPED', kind: 'now-skipped', before: 'PASSED', after: 'SKIPPED', regression: false },
      { id: 'JUDGED', kind: 'now-judged', before: 'SKIPPED', after: 'FAILED', regression: false },
      { id: 'ADDED', kind: 'new', after: 'PASSED', regression: false },
      { id: 'GONE', kind: 'removed', before: 'PASSED', regression: false },
    ];
    assert.deepEqual(comparison.checks, expected);
    assert.equal(comparison.regressions, 2);
  });

  it('reports a field added, a field removed (a regression) and a type changed, nested fields included', () => {
    const changes = observationChanges(
      {
        observations: [
          ['webhook.payload.shape', { id: 'string', amount: 'number', data: { code: 'string' } }],
        ],
      },
      {
        observations: [
          ['webhook.payload.shape', { amount: 'string', data: { code: 'string', end_to_end_id: 'string' } }],
        ],
      },
    );
    assert.deepEqual(changes, [
      {
        topic: 'webhook.payload.shape',
        kind: 'field-removed',
        field: 'id',
        before: 'string',
        regression: true,
      },
      {
        topic: 'webhook.payload.shape',
        kind: 'field-added',
        field: 'data.end_to_end_id',
        after: 'string',
        regression: false,
      },
      {
        topic: 'webhook.payload.shape',
        kind: 'type-changed',
        field: 'amount',
        before: 'number',
        after: 'string',
        regression: false,
      },
    ]);
  });

  it('compares every value a shape topic carries as one set of fields', () => {
    const changes = observationChanges(
      {
        observations: [
          ['error.response.shape.400', { error: 'string' }],
          ['error.response.shape.400', { message: 'string' }],
        ],
      },
      { observations: [['error.response.shape.400', { error: 'string', message: 'string' }]] },
    );
    assert.deepEqual(changes, [], 'a field seen in any value of the topic is still observed');
    const body = observationChanges(
      { observations: [['token.response.shape', TOKEN_SHAPE]] },
      { observations: [['token.response.shape', 'not JSON']] },
    );
    assert.deepEqual(
      body.map((c) => [c.kind, c.field, c.regression]),
      [
        ['field-removed', 'access_token', true],
        ['field-removed', 'token_type', true],
        ['field-removed', 'expires_in', true],
        ['type-changed', '(body)', false],
      ],
    );
  });

  it('reports a refusal status that moved, check_code.default and the duplicates, but not a reordered set', () => {
    const changes = observationChanges(
      {
        observations: [
          ['refusal.status.PAYMENT-REFUSE-WRONG-CLIENT-SECRET', 403],
          ['refusal.status.TOKEN-REFUSE-MALFORMED-CERT-CLIENT', 400],
          ['refusal.status.TOKEN-REFUSE-MALFORMED-CERT-CLIENT', 403],
          ['check_code.default', 'true (a repeated code is refused with 400)'],
          ['webhook.deliveries', 1],
        ],
      },
      {
        observations: [
          ['refusal.status.PAYMENT-REFUSE-WRONG-CLIENT-SECRET', 401],
          ['refusal.status.TOKEN-REFUSE-MALFORMED-CERT-CLIENT', 403],
          ['refusal.status.TOKEN-REFUSE-MALFORMED-CERT-CLIENT', 400],
          ['check_code.default', 'false (a repeated code is answered 200)'],
          ['webhook.deliveries', 2],
        ],
      },
    );
    assert.deepEqual(
      changes.map((c) => [c.topic, c.kind, c.before, c.after, c.regression]),
      [
        [
          'check_code.default',
          'value-changed',
          'true (a repeated code is refused with 400)',
          'false (a repeated code is answered 200)',
          false,
        ],
        ['refusal.status.PAYMENT-REFUSE-WRONG-CLIENT-SECRET', 'value-changed', '403', '401', false],
        ['webhook.deliveries', 'value-changed', '1', '2', false],
      ],
    );
  });

  it('flags a webhook delay only beyond max(1000 ms, twice the baseline)', () => {
    const delay = (was: number[], now: number[]): readonly ObservationChange[] =>
      observationChanges(
        { observations: was.map((ms) => ['webhook.delayMs', ms] as const) },
        { observations: now.map((ms) => ['webhook.delayMs', ms] as const) },
      );
    assert.equal(lateDelayMs(13), 1000);
    assert.equal(lateDelayMs(800), 1600);
    assert.deepEqual(delay([13, 20], [950]), [], 'within the 1000 ms floor');
    assert.deepEqual(delay([800], [1500]), [], 'within twice the baseline');
    assert.deepEqual(delay([5, 13], [40, 1200]), [
      { topic: 'webhook.delayMs', kind: 'later', before: '13 ms', after: '1200 ms', regression: false },
    ]);
  });

  it('reports topics first or no longer observed and lists of names by the names that changed', () => {
    const changes = observationChanges(
      {
        observations: [
          ['error.response.shape.403', { error: 'string' }],
          ['webhook.signature', ['webhook-id', 'webhook-signature']],
        ],
      },
      {
        observations: [
          ['error.response.shape.401', { error: 'string' }],
          ['webhook.signature', ['x-signature', 'webhook-id']],
        ],
      },
    );
    assert.deepEqual(
      changes.map((c) => [c.topic, c.kind, c.before, c.after]),
      [
        ['error.response.shape.401', 'first-observed', undefined, '{"error":"string"}'],
        ['error.response.shape.403', 'no-longer-observed', '{"error":"string"}', undefined],
        ['webhook.signature', 'list-changed', 'webhook-signature', 'x-signature'],
      ],
    );
  });

  it('tells a changed suite (spec hash, version) from a changed configuration', () => {
    const comparison = compareCertifications(
      certification(),
      certification({
        run: { specHash: 'bbbb', baseUrl: 'https://prod.example.test', options: { tokenField: 'token' } },
      }),
    );
    assert.deepEqual(comparison.run, [
      { field: 'specHash', before: 'aaaa', after: 'bbbb', source: 'suite' },
      {
        field: 'baseUrl',
        before: 'https://sandbox.example.test',
        after: 'https://prod.example.test',
        source: 'configuration',
      },
      { field: 'options.tokenField', before: 'access_token', after: 'token', source: 'configuration' },
    ]);
    assert.equal(comparison.suiteChanged, true);
    assert.equal(
      compareCertifications(certification(), certification({ run: { baseUrl: 'x' } })).suiteChanged,
      false,
    );
    const option = (options: Record<string, string>): Certification => certification({ run: { options } });
    assert.deepEqual(compareCertifications(option({}), option({ raceWidth: '3' })).run, [
      { field: 'options.raceWidth', before: '(not set)', after: '3', source: 'configuration' },
    ]);
    assert.deepEqual(compareCertifications(option({ raceWidth: '3' }), option({})).run, [
      { field: 'options.raceWidth', before: '3', after: '(not set)', source: 'configuration' },
    ]);
  });
});

describe('a verdict that moves to or from INCOMPLETE', () => {
  const incomplete = (checks: Readonly<Record<string, Verdict>>): Certification => ({
    ...certification({ checks }),
    verdict: 'INCOMPLETE',
    complete: false,
    incomplete: [{ cause: 'payout', reason: 'PIX_ALLOW_PAYOUTS is not 1', checks: ['B'] }],
  });

  it('PASSED → INCOMPLETE: checks no longer judged, not a regression, said plainly in every format', () => {
    const comparison = compareCertifications(
      certification({ checks: { A: 'PASSED', B: 'PASSED' } }),
      incomplete({ A: 'PASSED', B: 'SKIPPED' }),
    );
    assert.deepEqual(comparison.verdict, { before: 'PASSED', after: 'INCOMPLETE' });
    assert.equal(comparison.regressions, 0, 'judging less is not the environment getting worse');
    assert.deepEqual(
      comparison.checks.map((c) => [c.id, c.kind]),
      [['B', 'now-skipped']],
    );
    const notice = verdictChangeNotice(comparison) ?? '';
    assert.match(
      notice,
      /^The run's verdict moved from PASSED to INCOMPLETE: this run judged fewer checks than the baseline/,
    );
    assert.ok(renderChanges(comparison, 200).includes(`  ${notice}`));
  });

  it('INCOMPLETE → FAILED: the checks judged now are told, and the verdict', () => {
    const comparison = compareCertifications(
      incomplete({ A: 'PASSED', B: 'SKIPPED' }),
      certification({ checks: { A: 'PASSED', B: 'FAILED' } }),
    );
    assert.deepEqual(comparison.verdict, { before: 'INCOMPLETE', after: 'FAILED' });
    assert.deepEqual(
      comparison.checks.map((c) => [c.id, c.kind, c.after]),
      [['B', 'now-judged', 'FAILED']],
    );
    assert.match(
      verdictChangeNotice(comparison) ?? '',
      /from INCOMPLETE to FAILED: this run judged checks the baseline could not/,
    );
  });

  it('reads an INCOMPLETE baseline, valid against the schema', () => {
    assertValid(incomplete({ A: 'PASSED', B: 'SKIPPED' }));
  });
});

describe('a certification built against a baseline', () => {
  const baseline = certification({
    checks: { A: 'PASSED', B: 'PASSED' },
    observations: [['token.response.shape', TOKEN_SHAPE]],
  });
  const build = (failOnDrift: boolean): Certification =>
    buildCertification({
      checks: ['A', 'B'].map((id) => ({
        id,
        title: `title of ${id}`,
        clause: '§4.1',
        level: 'must' as const,
        reason: `reason of ${id}`,
        remedy: `remedy of ${id}`,
        needs: [],
      })),
      clauses: { '§4.1': 'Create token' },
      metadata: {
        runId: 'compared-run',
        suiteVersion: RUN.suiteVersion,
        specVersion: RUN.specVersion,
        specHash: RUN.specHash,
        mode: RUN.mode,
        baseUrl: RUN.baseUrl,
        reportDir: 'reports',
        strict: false,
        requireComplete: false,
        selection: [],
        seed: 1,
        options: RUN.options,
      },
      tests: [
        {
          titlePath: ['live', 'token.spec.ts', 'a test'],
          status: 'passed',
          durationMs: 100,
          errors: [],
          evaluations: [
            { checkId: 'A', verdict: 'PASSED' },
            { checkId: 'B', verdict: 'WARNING', expected: '403', actual: '401' },
          ],
          observations: [
            {
              topic: 'token.response.shape',
              clause: '§2.3 (not shown)',
              value: { token: 'string', token_type: 'string', expires_in: 'number' },
            },
          ],
        },
      ],
      suiteErrors: [],
      startTime: new Date('2026-01-12T09:00:00.000Z'),
      durationMs: 5000,
      baseline: { certification: baseline, failOnDrift },
    });

  it('carries the changes in certification.json, valid against the schema, and keeps its verdict', () => {
    const report = build(false);
    assertValid(report);
    assert.equal(report.verdict, 'WARNING');
    assert.equal(report.exitCode, 0, 'a regression alone does not fail the run without PIX_FAIL_ON_DRIFT=1');
    assert.deepEqual([report.changes?.regressions, report.changes?.failOnDrift], [2, false]);
  });

  it('fails the run with exit code 1 under PIX_FAIL_ON_DRIFT=1', () => {
    const report = build(true);
    assertValid(report);
    assert.equal(report.exitCode, 1);
  });

  it('shows the regressions first in the console, the Markdown summary and the HTML report', () => {
    const report = build(true);
    const console = renderConsole(report, PATHS, { width: 200, colour: false });
    const firstLines = console.trim().split('\n').slice(0, 3);
    assert.match(
      firstLines[0] ?? '',
      /^Changes since the baseline of 2026-01-05T09:00:00.000Z .*: 2 regressions, 1 other change\.$/,
    );
    assert.deepEqual(firstLines.slice(1), [
      '  REGRESSION  B: PASSED → WARNING',
      '  REGRESSION  token.response.shape: field access_token (string) disappeared',
    ]);
    assert.match(
      console,
      /PIX_FAIL_ON_DRIFT=1: a regression since the baseline fails the run \(exit code 1\)/,
    );
    const markdown = renderMarkdown(report, PATHS);
    assert.ok(markdown.indexOf('### Changes since the baseline') < markdown.indexOf('| Verdict | Checks |'));
    assert.match(markdown, /^- \*\*REGRESSION\*\*: B: PASSED → WARNING$/m);
    const html = renderHtml(report);
    assert.ok(html.indexOf('<section id="changes">') < html.indexOf('<section id="environment">'));
    assert.ok(html.indexOf('REGRESSION') < html.indexOf('new field token'));
  });
});

describe('compareCertifications, topic by topic', () => {
  const change = (topic: string, before: JsonValue[], after: JsonValue[]): readonly ObservationChange[] =>
    observationChanges(
      { observations: before.map((value): [string, JsonValue] => [topic, value]) },
      { observations: after.map((value): [string, JsonValue] => [topic, value]) },
    );

  it('tells names gone and names new in a list, sorted, and nothing for the same names in another order', () => {
    assert.deepEqual(change('webhook.headers', [['x', 'b', 'a']], [['d', 'a', 'c']]), [
      { topic: 'webhook.headers', kind: 'list-changed', before: 'b, x', after: 'c, d', regression: false },
    ]);
    assert.deepEqual(change('webhook.headers', [['a', 'b']], [['a']]), [
      { topic: 'webhook.headers', kind: 'list-changed', before: 'b', regression: false },
    ]);
    assert.deepEqual(change('webhook.headers', [['a']], [['b', 'a']]), [
      { topic: 'webhook.headers', kind: 'list-changed', after: 'b', regression: false },
    ]);
    assert.deepEqual(change('webhook.headers', [['a', 'b']], [['b', 'a']]), []);
  });

  it('compares a list that is not only names, or a list that became a value, as values', () => {
    // Lists of names on one side only: both sides are compared as values.
    assert.deepEqual(change('x.ids', [['a'], 'b'], [['a'], ['c']]), [
      {
        topic: 'x.ids',
        kind: 'value-changed',
        before: '["a"] or b',
        after: '["a"] or ["c"]',
        regression: false,
      },
    ]);
    assert.deepEqual(change('x.ids', [['a'], ['c']], [['a'], 'b']), [
      {
        topic: 'x.ids',
        kind: 'value-changed',
        before: '["a"] or ["c"]',
        after: '["a"] or b',
        regression: false,
      },
    ]);
    assert.deepEqual(change('x.ids', [['a', 1]], [['a', 2]]), [
      { topic: 'x.ids', kind: 'value-changed', before: '["a",1]', after: '["a",2]', regression: false },
    ]);
    assert.deepEqual(change('x.ids', [['a']], ['a']), [
      { topic: 'x.ids', kind: 'value-changed', before: '["a"]', after: 'a', regression: false },
    ]);
    assert.deepEqual(change('x.ids', ['a'], [['a']]), [
      { topic: 'x.ids', kind: 'value-changed', before: 'a', after: '["a"]', regression: false },
    ]);
  });

  it('leaves the times of the retry probe and of the statuses out: another run of the same environment is no change', () => {
    const retry = (afterSeconds: number, attempts: number): JsonValue => ({
      retried: true,
      attempts,
      afterSeconds,
      waitSeconds: 60,
      refusedWith: 503,
    });
    assert.deepEqual(change('webhook.retry', [retry(30.1, 2)], [retry(31.4, 2)]), []);
    assert.deepEqual(
      change('webhook.retry', [retry(30.1, 2)], [{ retried: false, attempts: 1, waitSeconds: 60 }]).map(
        (c) => c.kind,
      ),
      ['value-changed'],
    );
    const statuses = (at: string, last: string): JsonValue => [
      { statuses: ['PROCESSING'], receivedAt: at },
      { statuses: [last], receivedAt: at },
    ];
    assert.deepEqual(
      change(
        'webhook.statuses',
        [statuses('2026-01-01T00:00:00Z', 'PAID')],
        [statuses('2026-02-01T00:00:00Z', 'PAID')],
      ),
      [],
    );
    assert.deepEqual(
      change(
        'webhook.statuses',
        [statuses('2026-01-01T00:00:00Z', 'PAID')],
        [statuses('2026-01-01T00:00:00Z', 'FAILED')],
      ).map((c) => c.kind),
      ['value-changed'],
    );
  });

  it('shows what changed in the retry probe and the statuses without their times, and other values whole', () => {
    const changed = (topic: string, before: JsonValue, after: JsonValue, was: string, now: string): void =>
      assert.deepEqual(change(topic, [before], [after]), [
        { topic, kind: 'value-changed', before: was, after: now, regression: false },
      ]);
    changed(
      'webhook.retry',
      { retried: true, attempts: 2, afterSeconds: 30.1 },
      { retried: false, attempts: 1 },
      '{"retried":true,"attempts":2}',
      '{"retried":false,"attempts":1}',
    );
    changed(
      'webhook.statuses',
      [
        { statuses: ['PROCESSING'], receivedAt: 'T1' },
        { statuses: ['PAID'], receivedAt: 'T2' },
      ],
      [{ statuses: ['FAILED'], receivedAt: 'T3' }],
      '[{"statuses":["PROCESSING"]},{"statuses":["PAID"]}]',
      '[{"statuses":["FAILED"]}]',
    );
    // A value that is no object, or null, is compared as it is, on these topics too.
    changed('webhook.retry', 'a retry after 3 s', null, 'a retry after 3 s', 'null');
    changed('webhook.retry', null, 'none within 60 s', 'null', 'none within 60 s');
    // Another topic keeps every member: a time there is the environment's answer, not the run's clock.
    changed(
      'token.lifetime-probe',
      { acceptedAtSeconds: 5, receivedAt: 'T1' },
      { acceptedAtSeconds: 5, receivedAt: 'T2' },
      '{"acceptedAtSeconds":5,"receivedAt":"T1"}',
      '{"acceptedAtSeconds":5,"receivedAt":"T2"}',
    );
  });

  it('shows the several values of a topic sorted, joined by "or", first or last observed without a regression', () => {
    assert.deepEqual(change('x.status', [], ['b', 'a']), [
      { topic: 'x.status', kind: 'first-observed', after: 'a or b', regression: false },
    ]);
    assert.deepEqual(change('x.status', [403, 401], []), [
      { topic: 'x.status', kind: 'no-longer-observed', before: '401 or 403', regression: false },
    ]);
  });

  it('tells a webhook later only past max(1000 ms, 2 × the baseline), ignoring what is not a number', () => {
    assert.deepEqual(change('webhook.delayMs', [600], [1200]), []);
    assert.deepEqual(change('webhook.delayMs', [600], [1201, 'late']), [
      { topic: 'webhook.delayMs', kind: 'later', before: '600 ms', after: '1201 ms', regression: false },
    ]);
    const later = compareCertifications(
      certification({ observations: [['webhook.delayMs', 600]] }),
      certification({ observations: [['webhook.delayMs', 1201]] }),
    );
    assert.ok(
      renderChanges(later, 200).includes(
        '  changed     webhook.delayMs: the webhook arrives later, 600 ms → 1201 ms (beyond max(1000 ms, 2 × the baseline))',
      ),
      renderChanges(later, 200).join('\n'),
    );
  });

  it('follows fields into arrays and objects, and shows the types a field had sorted', () => {
    assert.deepEqual(
      change('webhook.payload.shape', [{ data: ['string'] }], [{ data: { code: 'string' } }]),
      [
        {
          topic: 'webhook.payload.shape',
          kind: 'field-removed',
          field: 'data[]',
          before: 'string',
          regression: true,
        },
        {
          topic: 'webhook.payload.shape',
          kind: 'field-added',
          field: 'data.code',
          after: 'string',
          regression: false,
        },
        {
          topic: 'webhook.payload.shape',
          kind: 'type-changed',
          field: 'data',
          before: 'array',
          after: 'object',
          regression: false,
        },
      ],
    );
    assert.deepEqual(change('token.response.shape', [{ a: 'string' }, { a: 'number' }], [{ a: 'number' }]), [
      {
        topic: 'token.response.shape',
        kind: 'type-changed',
        field: 'a',
        before: 'number or string',
        after: 'number',
        regression: false,
      },
    ]);
  });

  it('names the selection of each run, the whole suite when there is none', () => {
    const whole = certification();
    const grep = certification({ run: { selection: ['--grep', '@smoke'] } });
    assert.deepEqual(compareCertifications(whole, grep).run, [
      { field: 'selection', before: '(the whole suite)', after: '--grep @smoke', source: 'configuration' },
    ]);
  });

  it('is not unchanged when only an observation moved', () => {
    const comparison = compareCertifications(
      certification({ observations: [['x.status', 1]] }),
      certification({ observations: [['x.status', 2]] }),
    );
    assert.equal(unchanged(comparison), false);
    assert.equal(unchanged(compareCertifications(certification(), certification())), true);
  });
});

describe('readCertification', () => {
  let dir: string;
  const write = async (name: string, content: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };
  const problemOf = (path: string): string => {
    try {
      readCertification(path);
    } catch (error) {
      assert.ok(error instanceof UnreadableCertification, String(error));
      assert.ok(!error.message.includes('\n'), 'one line');
      return error.message;
    }
    assert.fail(`${path} was read`);
  };

  before(() => {
    dir = temporaryDir('pix-compare-');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads a certification it wrote', async () => {
    const report = certification();
    assert.deepEqual(readCertification(await write('good.json', JSON.stringify(report))), report);
  });

  it('says in one line why a file cannot be a baseline: older schema, not a certification, not JSON, missing', async () => {
    assert.match(
      problemOf(await write('old.json', JSON.stringify({ ...certification(), schemaVersion: 0 }))),
      /old\.json has report schema version 0, written by an earlier version of this suite \(version 2 added the INCOMPLETE verdict\), and this suite reads versions 2, 3, 4 and 5 only: run npm run certify with this version/,
    );
    assert.match(
      problemOf(await write('other.json', '{"name":"pkg"}')),
      /other\.json is not a certification \(no schemaVersion\)/,
    );
    assert.match(
      problemOf(await write('broken.json', JSON.stringify({ ...certification(), checks: [{ id: 'A' }] }))),
      /broken\.json is not a valid certification \(\/checks\/0 /,
    );
    assert.match(problemOf(await write('text.json', 'PASSED')), /text\.json is not JSON/);
    assert.match(problemOf(join(dir, 'missing.json')), /missing\.json cannot be read \(ENOENT\)/);
  });
});

describe('npm run compare on hand-built certifications', () => {
  let dir: string;
  const write = async (name: string, sketch: Sketch): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, JSON.stringify(certification(sketch)));
    return path;
  };

  before(() => {
    dir = temporaryDir('pix-compare-cli-');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('exits 1 on a single regression, and 0 when the only change is an improvement', async () => {
    const baseline = await write('baseline.json', { checks: { A: 'PASSED', B: 'WARNING' } });
    const [oneRegression, oneImprovement] = await Promise.all([
      write('regressed.json', { checks: { A: 'WARNING', B: 'WARNING' } }),
      write('improved.json', { checks: { A: 'PASSED', B: 'PASSED' } }),
    ]);
    const [regressed, improved] = await Promise.all([
      npmRunCompare(baseline, oneRegression),
      npmRunCompare(baseline, oneImprovement),
    ]);
    assert.equal(regressed.code, 1, regressed.stdout + regressed.stderr);
    assert.match(regressed.stdout, /:\s+1\s+regression,\s+0\s+other\s+changes\.$/m);
    assert.match(regressed.stdout, /^ {2}REGRESSION {2}A: PASSED → WARNING$/m);
    assert.equal(improved.code, 0, improved.stdout + improved.stderr);
    assert.match(improved.stdout, /:\s+0\s+regressions,\s+1\s+other\s+change\.$/m);
  });
  it('compares two report directories as it compares their certification.json files: 0 or 1, never 2', async () => {
    const reportDir = async (name: string, sketch: Sketch): Promise<string> => {
      const path = join(dir, name);
      await mkdir(path);
      await writeFile(join(path, 'certification.json'), JSON.stringify(certification(sketch)));
      return path;
    };
    const [before, same, worse] = await Promise.all([
      reportDir('run-1', { checks: { A: 'PASSED' } }),
      reportDir('run-2', { checks: { A: 'PASSED' } }),
      reportDir('run-3', { checks: { A: 'FAILED' } }),
    ]);
    const [unchangedRun, regressedRun] = await Promise.all([npmRunCompare(before, same), npmRunCompare(before, worse)]);
    assert.equal(unchangedRun.code, 0, unchangedRun.stderr);
    assert.equal(regressedRun.code, 1, regressedRun.stderr);
    const missing = await npmRunCompare(before, join(dir, 'nowhere'));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^pix-certify compare: .*nowhere cannot be read \(ENOENT\): give the certification\.json of an earlier run of this suite, or its report directory\.\n$/);
  }); // prettier-ignore

  it('lists its exit codes in --help', async () => {
    const help = await npmRunCompare('--help');
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /^Exit codes:\n {2}0 {2}nothing regressed\n {2}1 {2}a check or an observation regressed/m,
    );
  });
});
