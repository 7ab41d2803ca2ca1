/**
 * Why a check was not judged, and whether the certification is complete. Decided from data only:
 * the capabilities each SKIPPED evaluation says the target lacked, the answer that blocked it, the
 * run's selection, and whether the suite went wrong; never from the wording of a reason. A run that
 * did not judge a selected check, for whatever reason, is INCOMPLETE, never PASSED: a reason the
 * person running it can remove (the mock, no payout opt-in, an unreachable webhook receiver, a --grep
 * or --shard), or an answer of the environment (no token, a 429, a 5xx, a refused prerequisite).
 */
import type { Blocker, Capability, CheckDefinition, Evaluation } from '../checks/vocabulary.ts';
import type { IncompleteCause, IncompleteReason, NotJudged, SuiteError } from './model.ts';
import { suiteCommand } from '../base/invocation.ts';

/** The environment's answer that stopped checks, in a sentence. */
function blockerText(blocker: Blocker | undefined): string {
  if (blocker === undefined) return 'an answer of the environment';
  const judged = blocker.check === undefined ? '' : `, judged by ${blocker.check}`;
  return `${blocker.answer} at ${blocker.at}${judged}`;
}

/** What each cause leaves out and how to remove it, as every report says it. */
export function incompleteReason(
  cause: IncompleteCause,
  selection: readonly string[],
  blocker?: Blocker,
): string {
  switch (cause) {
    case 'environment':
      return `The environment's answers left these checks unjudged, first ${blockerText(blocker)}. A run that did not judge every check certifies nothing: fix what that answer shows (or wait out a rate limit) and run again.`;
    case 'provider':
      return `A run against the embedded mock certifies nothing about a provider: the mock checks no credential value, keeps no state and accepts whatever its schema allows. Set PIX_BASE_URL to the environment to certify (${suiteCommand('sandbox')} serves one on this machine).`;
    case 'payout':
      return 'PIX_ALLOW_PAYOUTS is not 1, so no withdrawal (POST /pix/payment) was sent. Set PIX_ALLOW_PAYOUTS=1 to judge these: tiny amounts, to your own payee, within the budget.';
    case 'webhook':
      return "The environment cannot reach the webhook receiver: it is not on this machine, and neither PIX_WEBHOOK_PUBLIC_URL nor PIX_WEBHOOK_RECEIVER_URL is set. Either expose the suite's own receiver (a tunnel, a CI host name) and set PIX_WEBHOOK_PUBLIC_URL to that address, or deploy the standalone receiver where the environment reaches it and set PIX_WEBHOOK_RECEIVER_URL and PIX_WEBHOOK_RECEIVER_TOKEN.";
    case 'selection':
      return `This run selected part of the suite (${selection.join(' ')}), and the tests that judge these were left out. Run the whole suite, without --grep, --shard or file filters, to certify.`;
  }
}

/** Fixed, so that every report lists the causes in the same order. */
const CAUSES: readonly IncompleteCause[] = ['provider', 'payout', 'webhook', 'selection', 'environment'];

export interface RunFacts {
  /** The capabilities any SKIPPED evaluation of the run said the target lacked: they hold for the whole run. */
  readonly lacked: ReadonlySet<Capability>;
  readonly selection: readonly string[];
  /** Suite errors found so far (global errors, broken tests). */
  readonly suiteErrors: number;
}

export const lackedBy = (evaluations: readonly Evaluation[]): Set<Capability> =>
  new Set(evaluations.flatMap((e) => (e.verdict === 'SKIPPED' ? (e.lacks ?? []) : [])));

/**
 * Why a check whose evaluations all said SKIPPED (or that has none) was not judged. Evaluations say
 * it themselves: a lack, or else something the run found. A check no test evaluated still needs
 * what it needs: if the run lacked that, it is why (its test stopped at the first check it could
 * not judge); else the selection left it out; else the suite went wrong.
 */
export function notJudgedOf(
  check: CheckDefinition,
  evaluations: readonly Evaluation[],
  facts: RunFacts,
): NotJudged {
  const lacks =
    evaluations.length > 0
      ? [...lackedBy(evaluations)]
      : check.needs.filter((need) => facts.lacked.has(need));
  if (lacks.length > 0) return { cause: 'lacks', lacks };
  // Only some readings exercise it (pix-certify client --readings): one that cannot leaves the run complete.
  if (evaluations.length > 0 && check.readings === 'some') return { cause: 'reading' };
  if (evaluations.length > 0) return { cause: 'outcome', ...firstBlocker(evaluations) };
  if (facts.selection.length > 0) return { cause: 'selection' };
  return { cause: 'error' };
}

/** The earliest answer that blocked any of these evaluations, as `{ blockedBy }`, or nothing. */
function firstBlocker(evaluations: readonly Evaluation[]): { blockedBy?: Blocker } {
  const blockers = evaluations.flatMap((e) => (e.blockedBy === undefined ? [] : [e.blockedBy]));
  const first = blockers.sort((a, b) => a.at.localeCompare(b.at))[0];
  return first === undefined ? {} : { blockedBy: first };
}

/** The reason recorded for a check that no test evaluated. */
export function unevaluatedReason(notJudged: NotJudged, facts: RunFacts): string {
  switch (notJudged.cause) {
    case 'lacks':
      return (notJudged.lacks ?? []).map((cause) => incompleteReason(cause, facts.selection)).join(' ');
    case 'selection':
      return `this run's selection (${facts.selection.join(' ')}) left out the tests that judge it`;
    case 'error':
    case 'outcome':
    case 'reading':
      return facts.suiteErrors > 0
        ? 'the suite went wrong before a test judged it (see the suite errors)'
        : 'no test of this run evaluated it, though the whole suite ran and no test broke';
  }
}

/**
 * The suite error for checks that no test evaluated in a run of the whole suite where nothing
 * broke: the catalogue promises them, so the suite itself has a gap.
 */
export function unjudgedError(ids: readonly string[], silentSkips: readonly string[]): SuiteError {
  const skipped =
    silentSkips.length === 0
      ? 'a test that skipped itself before recording them'
      : `${silentSkips.length === 1 ? 'a test skipped without recording the checks it judges' : `${silentSkips.length} tests skipped without recording the checks they judge`} (${silentSkips.join('; ')})`;
  return {
    test: null,
    message: `no test of this run judged ${ids.length === 1 ? 'the check' : `${ids.length} checks`} ${ids.join(', ')}, though the whole suite ran and no test broke: ${skipped}, a test.only, or a check without a test (src/checks/catalogue.ts).`,
  };
}

/** The causes the person running the suite can remove, each with the checks it left unjudged. */
export function incompleteness(
  notJudged: ReadonlyMap<string, NotJudged>,
  selection: readonly string[],
): IncompleteReason[] {
  const byCause = new Map<IncompleteCause, string[]>();
  let blocker: Blocker | undefined;
  for (const [id, { cause, lacks, blockedBy }] of notJudged) {
    const causes: IncompleteCause[] =
      cause === 'lacks'
        ? [...(lacks ?? [])]
        : cause === 'selection'
          ? ['selection']
          : cause === 'outcome'
            ? ['environment']
            : [];
    for (const c of causes) byCause.set(c, [...(byCause.get(c) ?? []), id]);
    if (blockedBy !== undefined && (blocker === undefined || blockedBy.at < blocker.at)) blocker = blockedBy;
  }
  return CAUSES.filter((cause) => byCause.has(cause)).map((cause) => ({
    cause,
    reason: incompleteReason(cause, selection, blocker),
    checks: byCause.get(cause) ?? [],
  }));
}
