/**
 * Why a check was not judged, and whether the run is complete (src/report/completeness.ts), as pure
 * functions: the cause decided from the evaluations, the run's lacks and its selection, never from
 * a reason's wording; the earliest answer that blocked; the causes in their fixed order, a check
 * lacking two capabilities under both; and the sentences every report prints for them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  incompleteness,
  incompleteReason,
  lackedBy,
  notJudgedOf,
  unevaluatedReason,
  unjudgedError,
  type RunFacts,
} from '../src/report/completeness.ts';
import type { Blocker, Capability, CheckDefinition, Evaluation } from '../src/checks/vocabulary.ts';
import type { NotJudged } from '../src/report/model.ts';

const check = (needs: readonly Capability[]): CheckDefinition => ({
  id: 'C',
  title: 'title',
  clause: '§4.1',
  level: 'must',
  reason: 'reason',
  remedy: 'remedy',
  needs,
});

const facts = (
  lacked: readonly Capability[] = [],
  selection: readonly string[] = [],
  suiteErrors = 0,
): RunFacts => ({
  lacked: new Set(lacked),
  selection,
  suiteErrors,
});

const skipped = (extra: Partial<Evaluation> = {}): Evaluation => ({
  checkId: 'C',
  verdict: 'SKIPPED',
  ...extra,
});

const EARLY: Blocker = {
  answer: 'POST /auth/token answered 429',
  at: '2026-01-05T09:00:01.000Z',
  check: 'TOKEN-ISSUED',
};
const LATE: Blocker = { answer: 'POST /pix/payment answered 503', at: '2026-01-05T09:00:02.000Z' };

describe('the sentence for each cause', () => {
  it('names the first answer of the environment, and the check that judged it when there is one', () => {
    const tail = 'A run that did not judge every check certifies nothing: fix what that answer shows (or wait out a rate limit) and run again.';
    assert.equal(incompleteReason('environment', [], EARLY), `The environment's answers left these checks unjudged, first POST /auth/token answered 429 at 2026-01-05T09:00:01.000Z, judged by TOKEN-ISSUED. ${tail}`);
    assert.equal(incompleteReason('environment', [], LATE), `The environment's answers left these checks unjudged, first POST /pix/payment answered 503 at 2026-01-05T09:00:02.000Z. ${tail}`);
    assert.equal(incompleteReason('environment', []), `The environment's answers left these checks unjudged, first an answer of the environment. ${tail}`);
  }); // prettier-ignore

  it('quotes the selection, and names what removes each lack', () => {
    assert.equal(
      incompleteReason('selection', ['--grep', '@smoke']),
      'This run selected part of the suite (--grep @smoke), and the tests that judge these were left out. Run the whole suite, without --grep, --shard or file filters, to certify.',
    );
    assert.match(incompleteReason('provider', []), /^A run against the embedded mock certifies nothing about a provider: .* Set PIX_BASE_URL to the environment to certify \(npm run sandbox serves one on this machine\)\.$/);
    assert.match(incompleteReason('payout', []), /^PIX_ALLOW_PAYOUTS is not 1, so no withdrawal \(POST \/pix\/payment\) was sent\. Set PIX_ALLOW_PAYOUTS=1/);
    assert.match(incompleteReason('webhook', []), /^The environment cannot reach the webhook receiver: .*PIX_WEBHOOK_PUBLIC_URL.*PIX_WEBHOOK_RECEIVER_URL and PIX_WEBHOOK_RECEIVER_TOKEN\.$/);
  }); // prettier-ignore
});

describe('why a check was not judged', () => {
  it('takes the lacks the SKIPPED evaluations name, all of them, and no other verdict’s', () => {
    assert.deepEqual(
      [...lackedBy([skipped({ lacks: ['payout'] }), skipped({ lacks: ['webhook', 'payout'] }), skipped(), { checkId: 'C', verdict: 'FAILED', lacks: ['provider'] }])],
      ['payout', 'webhook'],
    );
    assert.deepEqual([...lackedBy([])], []);
  }); // prettier-ignore

  it('a check with evaluations: their lacks, else the earliest answer that blocked one, else only the outcome', () => {
    const run = facts(['provider'], ['--grep', 'x']);
    assert.deepEqual(notJudgedOf(check(['provider']), [skipped({ lacks: ['webhook'] })], run), { cause: 'lacks', lacks: ['webhook'] });
    assert.deepEqual(notJudgedOf(check(['provider']), [skipped({ blockedBy: LATE }), skipped(), skipped({ blockedBy: EARLY })], run), { cause: 'outcome', blockedBy: EARLY });
    assert.deepEqual(notJudgedOf(check([]), [skipped({ blockedBy: EARLY }), skipped({ blockedBy: LATE })], run), { cause: 'outcome', blockedBy: EARLY });
    assert.deepEqual(notJudgedOf(check([]), [skipped()], run), { cause: 'outcome' });
  }); // prettier-ignore

  it('a check no test evaluated: what it needs that the run lacked, else the selection, else an error', () => {
    assert.deepEqual(notJudgedOf(check(['provider', 'payout', 'webhook']), [], facts(['webhook', 'provider'])), { cause: 'lacks', lacks: ['provider', 'webhook'] });
    assert.deepEqual(notJudgedOf(check(['payout']), [], facts(['webhook'], ['--shard', '1/2'])), { cause: 'selection' });
    assert.deepEqual(notJudgedOf(check(['payout']), [], facts(['webhook'])), { cause: 'error' });
  }); // prettier-ignore

  it('gives the reason recorded for a check no test evaluated', () => {
    const run = facts([], ['--grep', '@smoke']);
    assert.equal(
      unevaluatedReason({ cause: 'lacks', lacks: ['payout', 'webhook'] }, run),
      `${incompleteReason('payout', run.selection)} ${incompleteReason('webhook', run.selection)}`,
    );
    assert.equal(unevaluatedReason({ cause: 'lacks' }, run), '');
    assert.equal(unevaluatedReason({ cause: 'selection' }, run), "this run's selection (--grep @smoke) left out the tests that judge it");
    for (const cause of ['error', 'outcome'] as const) {
      assert.equal(unevaluatedReason({ cause }, facts([], [], 1)), 'the suite went wrong before a test judged it (see the suite errors)');
      assert.equal(unevaluatedReason({ cause }, facts()), 'no test of this run evaluated it, though the whole suite ran and no test broke');
    }
  }); // prettier-ignore

  it('names the checks no test judged in a whole run, and the tests that skipped without saying which', () => {
    const tail = ', a test.only, or a check without a test (src/checks/catalogue.ts).';
    assert.deepEqual(unjudgedError(['A'], []), {
      test: null,
      message: `no test of this run judged the check A, though the whole suite ran and no test broke: a test that skipped itself before recording them${tail}`,
    });
    assert.equal(unjudgedError(['A', 'B'], ['t1']).message, `no test of this run judged 2 checks A, B, though the whole suite ran and no test broke: a test skipped without recording the checks it judges (t1)${tail}`);
    assert.equal(unjudgedError(['A'], ['t1', 't2']).message, `no test of this run judged the check A, though the whole suite ran and no test broke: 2 tests skipped without recording the checks they judge (t1; t2)${tail}`);
  }); // prettier-ignore
});

describe('incompleteness', () => {
  it('lists each cause the person running the suite can remove, in a fixed order, with its checks; an error is none', () => {
    const notJudged = new Map<string, NotJudged>([
      ['ENV-1', { cause: 'outcome', blockedBy: LATE }],
      ['SEL-1', { cause: 'selection' }],
      ['BOTH', { cause: 'lacks', lacks: ['webhook', 'payout'] }],
      ['ERR', { cause: 'error' }],
      ['ENV-2', { cause: 'outcome', blockedBy: EARLY }],
      ['ENV-3', { cause: 'outcome' }],
      ['MOCK', { cause: 'lacks', lacks: ['provider'] }],
      ['PAY', { cause: 'lacks', lacks: ['payout'] }],
      ['NONE', { cause: 'lacks' }],
    ]);
    const selection = ['--grep', '@auth'];
    assert.deepEqual(incompleteness(notJudged, selection), [
      { cause: 'provider', reason: incompleteReason('provider', selection), checks: ['MOCK'] },
      { cause: 'payout', reason: incompleteReason('payout', selection), checks: ['BOTH', 'PAY'] },
      { cause: 'webhook', reason: incompleteReason('webhook', selection), checks: ['BOTH'] },
      { cause: 'selection', reason: incompleteReason('selection', selection), checks: ['SEL-1'] },
      { cause: 'environment', reason: incompleteReason('environment', selection, EARLY), checks: ['ENV-1', 'ENV-2', 'ENV-3'] },
    ]);
    assert.deepEqual(incompleteness(new Map([['ERR', { cause: 'error' }]]), []), []);
  }); // prettier-ignore

  it('names the earliest blocker whichever check met it first, and keeps the first of two at the same time', () => {
    const same: Blocker = { ...EARLY, answer: 'GET /x answered 500' };
    const [environment] = incompleteness(
      new Map<string, NotJudged>([
        ['A', { cause: 'outcome', blockedBy: EARLY }],
        ['B', { cause: 'outcome', blockedBy: same }],
        ['C', { cause: 'outcome', blockedBy: LATE }],
      ]),
      [],
    );
    assert.equal(environment?.reason, incompleteReason('environment', [], EARLY));
  });
});
