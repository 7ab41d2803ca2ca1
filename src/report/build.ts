/**
 * From what the tests recorded to the certification: one verdict per catalogue check, the
 * coverage of the document's clauses, the changes since a baseline, the run's verdict and exit
 * code (decided here only). Pure, so that every rule is tested without running Playwright. The
 * certification is scrubbed as a whole before it leaves, and every artifact is rendered from it,
 * so no string reaches a file unscrubbed.
 */
import { createHash } from 'node:crypto';
import type { CheckDefinition, Evaluation, Verdict } from '../checks/vocabulary.ts';
import type { PixRunMetadata } from '../run/run-metadata.ts';
import { compareCertifications, type Compared } from './compare.ts';
import {
  incompleteness,
  lackedBy,
  notJudgedOf,
  unevaluatedReason,
  unjudgedError,
  type RunFacts,
} from './completeness.ts';
import { withoutColours } from './errors.ts';
import {
  SCHEMA_VERSION,
  type Certification,
  type Changes,
  type CheckResult,
  type Coverage,
  type Evidence,
  type IncompleteReason,
  type NotJudged,
  type OverallVerdict,
  type ReportedObservation,
  type SuiteError,
  type TestOutcome,
} from './model.ts';
import { redact, redactJson } from '../secrets/redact.ts';
import type { WithdrawalSummary } from './withdrawals.ts';
import { noWebhookForRefused, type WatchedRefusal } from '../checks/webhook.ts';
import { type PaceAttempt, webhookRetryPace } from '../checks/webhook-pace.ts';
import {
  RENEWAL_INTERVAL_SECONDS,
  tokenLifetime,
  tokenReusable,
  tokenSurvivesNewer,
} from '../checks/token.ts';
import { judgement, verdictOf, violation, type Violation } from '../checks/check.ts';

export interface CertificationInput {
  readonly checks: readonly CheckDefinition[];
  /** Clause id (`§4.1`, `payloads`) → title, from the spec's `x-doc-clauses`. */
  readonly clauses: Readonly<Record<string, string>>;
  readonly metadata: PixRunMetadata;
  readonly tests: readonly TestOutcome[];
  /** Errors outside any check: Playwright's global errors, unreadable attachments. */
  readonly suiteErrors: readonly SuiteError[];
  readonly startTime: Date;
  readonly durationMs: number;
  /** An earlier certification to report the changes since (PIX_BASELINE). */
  readonly baseline?: Baseline;
  /** What the run's withdrawals did, from its ledger. */
  readonly withdrawals?: WithdrawalSummary;
  /** The refused withdrawals the ledger says were watched for webhooks until the run ended. */
  readonly refusals?: readonly WatchedRefusal[];
  /** Every withdrawal's webhook attempts when the run ended, from the ledger. */
  readonly paces?: readonly { readonly code: string; readonly attempts: readonly PaceAttempt[] }[];
}

export interface Baseline {
  readonly certification: Certification;
  /** PIX_FAIL_ON_DRIFT=1: a regression since the baseline fails the run. */
  readonly failOnDrift: boolean;
}

const EVIDENCE_KEPT = 5;
/** Enough for any message the suite writes; a longer one is a dump nobody reads in a report. */
const MESSAGE_LIMIT = 2_000;

/** Worst first. A check PASSED in one test and SKIPPED in another has been judged: it PASSED. */
export const SEVERITY: readonly Verdict[] = ['FAILED', 'WARNING', 'PASSED', 'SKIPPED'];
const FAILING_STATUSES: ReadonlySet<TestOutcome['status']> = new Set(['failed', 'timedOut', 'interrupted']);

export const worst = (verdicts: readonly Verdict[]): Verdict =>
  SEVERITY.find((verdict) => verdicts.includes(verdict)) ?? 'SKIPPED';

const titleOf = (test: TestOutcome): string => test.titlePath.join(' › ');

/**
 * Playwright colours its messages; the artifacts are read elsewhere. Masked before it is
 * shortened, so that a cut never leaves part of a secret unmasked.
 */
function plain(message: string): string {
  const text = redact(withoutColours(message));
  return text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT - 1)}…` : text;
}

/** Clause ids a check's clause string names: `§4.1, §5.4` → §4.1 and §5.4; `§5` names §5 only. */
export function clauseTokens(clause: string): string[] {
  return [...clause.matchAll(/§\d+(?:\.\d+)?|\bpayloads\b/g)].map((match) => match[0]);
}

function evidenceOf(evaluations: readonly Evaluation[]): Evidence[] {
  const distinct = new Map<string, Evidence>();
  const notPassed = evaluations
    .filter((e) => e.verdict !== 'PASSED')
    .sort((a, b) => SEVERITY.indexOf(a.verdict) - SEVERITY.indexOf(b.verdict));
  for (const { verdict, expected, actual, reproduction, reason } of notPassed) {
    const item: Evidence = {
      verdict,
      ...(expected === undefined ? {} : { expected }),
      ...(actual === undefined ? {} : { actual }),
      ...(reproduction === undefined ? {} : { reproduction }),
      ...(reason === undefined ? {} : { reason }),
    };
    distinct.set(JSON.stringify(item), item);
  }
  return [...distinct.values()];
}

/**
 * A check whose findings share one root cause (`onePerRun`): its first finding alone, noting how many
 * distinct answers showed it, and none of its skips beside it.
 */
function firstFindingOf(evidence: readonly Evidence[]): Evidence[] {
  const findings = evidence.filter((e) => e.verdict === 'FAILED' || e.verdict === 'WARNING');
  const [first] = findings;
  if (first === undefined) return [...evidence];
  return findings.length === 1
    ? [first]
    : [
        {
          ...first,
          reason: `the first of ${findings.length} distinct answers that showed it: one root cause, one finding`,
        },
      ];
}

/** What the tests said about one check: its evaluations and the time of the tests that made them. */
interface Judged {
  readonly evaluations: readonly Evaluation[];
  readonly durationMs: number;
}

function checkResult(
  check: CheckDefinition,
  judged: Judged,
  notJudged: NotJudged | undefined,
  facts: RunFacts,
): CheckResult {
  const { evaluations } = judged;
  const verdict = worst(evaluations.map((e) => e.verdict));
  const evidence =
    evaluations.length === 0 && notJudged !== undefined
      ? [{ verdict, reason: unevaluatedReason(notJudged, facts) }]
      : check.onePerRun === true
        ? firstFindingOf(evidenceOf(evaluations))
        : evidenceOf(evaluations);
  return {
    ...reportedDefinition(check),
    verdict,
    evaluations: evaluations.length,
    durationMs: Math.round(judged.durationMs),
    ...(notJudged === undefined ? {} : { notJudged }),
    ...keptEvidence(verdict, evidence, evidence.length),
  };
}

/** What every report says of a check as it is defined, beside its verdict. */
export const reportedDefinition = (
  check: CheckDefinition,
): Pick<CheckResult, 'id' | 'title' | 'clause' | 'level' | 'reason' | 'remedy' | 'money'> => ({
  id: check.id,
  title: check.title,
  clause: check.clause,
  level: check.level,
  reason: check.reason,
  remedy: check.remedy,
  ...(check.money === undefined ? {} : { money: check.money }),
});

/** A check that did not pass keeps its first few pieces of evidence and how many there were; one that passed none. */
export const keptEvidence = (
  verdict: Verdict,
  evidence: readonly Evidence[],
  count: number,
): Pick<CheckResult, 'evidence' | 'evidenceCount'> =>
  verdict === 'PASSED' ? {} : { evidence: evidence.slice(0, EVIDENCE_KEPT), evidenceCount: count };

export function coverageOf(
  checks: readonly CheckResult[],
  clauses: Readonly<Record<string, string>>,
): Coverage {
  const covered = Object.entries(clauses).map(([clause, title]) => ({
    clause,
    title,
    checks: checks
      .filter((c) => clauseTokens(c.clause).includes(clause))
      .map(({ id, verdict }) => ({ id, verdict })),
  }));
  return { clauses: covered, uncovered: covered.filter((c) => c.checks.length === 0).map((c) => c.clause) };
}

function observationsOf(tests: readonly TestOutcome[]): ReportedObservation[] {
  const distinct = new Map<string, ReportedObservation>();
  for (const { topic, clause, value, note } of tests.flatMap((t) => t.observations)) {
    const observation = { topic, clause, value, ...(note === undefined ? {} : { note }) };
    distinct.set(JSON.stringify([observation.topic, observation.value]), observation);
  }
  return [...distinct.values()].sort((a, b) => a.topic.localeCompare(b.topic));
}

/**
 * A test that did not pass although none of its checks FAILED went wrong in the suite (a thrown
 * error, a timeout, an interruption); so does an evaluation of a check the catalogue lacks.
 */
function testErrors(tests: readonly TestOutcome[], known: ReadonlySet<string>): SuiteError[] {
  return tests.flatMap((test) => {
    const unknown = [...new Set(test.evaluations.map((e) => e.checkId).filter((id) => !known.has(id)))].map(
      (id) => ({
        test: titleOf(test),
        message: `evaluated check ${id}, which is not in the catalogue (src/checks/catalogue.ts)`,
      }),
    );
    const broke = FAILING_STATUSES.has(test.status) && !test.evaluations.some((e) => e.verdict === 'FAILED');
    const message = plain(test.errors.join('\n')) || `the test ended ${test.status}`;
    return broke ? [...unknown, { test: titleOf(test), message }] : unknown;
  });
}

/** The run's verdict from its counts, suite errors and causes of incompleteness (verify recomputes it). */
export function overall(
  counts: Readonly<Record<Verdict, number>>,
  suiteErrors: readonly SuiteError[],
  incomplete: readonly IncompleteReason[],
): OverallVerdict {
  if (counts.FAILED > 0) return 'FAILED';
  if (suiteErrors.length > 0) return 'ERROR';
  if (incomplete.length > 0) return 'INCOMPLETE';
  return counts.WARNING > 0 ? 'WARNING' : 'PASSED';
}

/** Checks whose finding can cost money (a double payout, a payout lost): each fails the gate, whatever its level. */
export const moneyFindings = (checks: readonly CheckResult[]): CheckResult[] =>
  checks.filter((c) => c.money !== undefined && (c.verdict === 'FAILED' || c.verdict === 'WARNING'));

/**
 * The exit code a verdict gives under the run's strictness, its changes and its findings that can
 * cost money (verify recomputes it).
 */
export function exitCodeOf(
  verdict: OverallVerdict,
  metadata: Pick<PixRunMetadata, 'strict' | 'requireComplete'>,
  changes: Changes | undefined,
  checks: readonly CheckResult[],
): 0 | 1 | 2 {
  if (verdict === 'ERROR') return 2;
  const drifted = changes !== undefined && changes.failOnDrift && changes.regressions > 0;
  const strictly =
    (verdict === 'WARNING' && metadata.strict) ||
    (verdict === 'INCOMPLETE' && (metadata.strict || metadata.requireComplete));
  return verdict === 'FAILED' || strictly || drifted || moneyFindings(checks).length > 0 ? 1 : 0;
}

/** Compared as written: the baseline was scrubbed, so this run is too, or a masked value would differ. */
function changesSince(baseline: Baseline, current: Compared): Changes {
  return {
    ...compareCertifications(baseline.certification, redactJson(current)),
    failOnDrift: baseline.failOnDrift,
  };
}

/** Each check's evaluations, and the summed durations of the distinct tests that made them. */
function judgedByCheck(tests: readonly TestOutcome[]): Map<string, Judged> {
  const judged = new Map<string, { evaluations: Evaluation[]; durationMs: number }>();
  for (const test of tests) {
    for (const id of new Set(test.evaluations.map((e) => e.checkId))) {
      const entry = judged.get(id) ?? { evaluations: [], durationMs: 0 };
      entry.evaluations.push(...test.evaluations.filter((e) => e.checkId === id));
      entry.durationMs += test.durationMs;
      judged.set(id, entry);
    }
  }
  return judged;
}

/**
 * One root cause, one finding: a check whose request is the valid request of another (`variantOf`)
 * with one header changed, FAILED with the same server error that check FAILED the valid request
 * with, found nothing of its own: it is SKIPPED naming that check; so is the FAILED of a check whose
 * failure another FAILED check already holds (`subsumedBy`).
 */
export function withRootCauses(
  judged: ReadonlyMap<string, Judged>,
  checks: readonly CheckDefinition[],
  at: string,
): Map<string, Judged> {
  const serverErrorOf = (id: string): Set<number> =>
    new Set(
      (judged.get(id)?.evaluations ?? []).flatMap((e) =>
        e.verdict === 'FAILED' && e.answered !== undefined && e.answered >= 500 ? [e.answered] : [],
      ),
    );
  const result = new Map(judged);
  for (const { id, subsumedBy } of checks) {
    const entry = judged.get(id);
    if (subsumedBy === undefined || entry === undefined) continue;
    if (!(judged.get(subsumedBy)?.evaluations ?? []).some((e) => e.verdict === 'FAILED')) continue;
    const evaluations = entry.evaluations.map((e): Evaluation => {
      if (e.verdict !== 'FAILED') return e;
      return {
        checkId: e.checkId,
        ...(e.answered === undefined ? {} : { answered: e.answered }),
        verdict: 'SKIPPED',
        reason: `not judged apart: ${subsumedBy} FAILED already, and its finding holds this one; see ${subsumedBy}`,
        blockedBy: { answer: `${subsumedBy} FAILED`, at, check: subsumedBy },
      };
    });
    result.set(id, { ...entry, evaluations });
  }
  for (const { id, variantOf } of checks) {
    const entry = judged.get(id);
    if (variantOf === undefined || entry === undefined) continue;
    const shared = serverErrorOf(variantOf);
    if (shared.size === 0) continue;
    const evaluations = entry.evaluations.map((e): Evaluation => {
      if (e.verdict !== 'FAILED' || e.answered === undefined || !shared.has(e.answered)) return e;
      return {
        checkId: e.checkId,
        answered: e.answered,
        verdict: 'SKIPPED',
        reason: `not judged: answered ${e.answered}, as the valid request itself was, so the header this request changed shows nothing; see ${variantOf}`,
        blockedBy: { answer: `the valid request answered ${e.answered}`, at, check: variantOf },
      };
    });
    result.set(id, { ...entry, evaluations });
  }
  return result;
}

/**
 * WEBHOOK-NONE-FOR-REFUSED over the whole run: its test judges its own refusal when its wait ends, and
 * every other refused withdrawal that named a PostBackUrl, watched until the run ended (the ledger),
 * joins that judgement as one more evaluation when any got a webhook. A check its test did not judge
 * (not selected, or skipped) stays as it was.
 */
export function withRefusalsWatched(
  judged: ReadonlyMap<string, Judged>,
  refusals: readonly WatchedRefusal[],
): Map<string, Judged> {
  const entry = judged.get(noWebhookForRefused.id);
  if (entry === undefined || entry.evaluations.every((e) => e.verdict === 'SKIPPED')) return new Map(judged);
  const others = refusals.filter((r) => r.checkId !== noWebhookForRefused.id);
  const watched = judgement(noWebhookForRefused, { refusals: others });
  return withWatched(judged, noWebhookForRefused.id, 'unjudged' in watched ? [] : watched.violations);
}

/** The checks judged, with one more evaluation of `id` holding what a watch until the run ended found; none, as they were. */
function withWatched(
  judged: ReadonlyMap<string, Judged>,
  id: string,
  violations: readonly Violation[],
): Map<string, Judged> {
  const result = new Map(judged);
  const entry = judged.get(id);
  if (entry === undefined || violations.length === 0) return result;
  const evaluation: Evaluation = {
    checkId: id,
    verdict: verdictOf(violations),
    expected: [...new Set(violations.map((v) => v.expected))].join(' | '),
    actual: violations.map((v) => v.actual).join(' | '),
  };
  result.set(id, { ...entry, evaluations: [...entry.evaluations, evaluation] });
  return result;
}

/**
 * WEBHOOK-RETRY-PACE over the whole run: its test judges the attempts its wait saw for its own withdrawal;
 * when that found nothing, every withdrawal's attempts until the run ended (the ledger) join it as one more
 * evaluation if any paced badly (a provider that keeps posting after the wait, or to another withdrawal).
 * A check its test did not judge, or already found wanting, stays as it was: one finding.
 */
export function withPacesWatched(
  judged: ReadonlyMap<string, Judged>,
  paces: readonly { readonly code: string; readonly attempts: readonly PaceAttempt[] }[],
): Map<string, Judged> {
  if (!foundNothing(judged, webhookRetryPace.id)) return new Map(judged);
  const violations = paces.flatMap(({ code, attempts }) => {
    const watched = judgement(webhookRetryPace, { attempts });
    return 'unjudged' in watched
      ? []
      : watched.violations.map((v) => ({ ...v, actual: `withdrawal ${code}: ${v.actual}` }));
  });
  return withWatched(judged, webhookRetryPace.id, violations);
}

/** Whether check `id` was judged (PASSED somewhere) and found nothing (no WARNING or FAILED). */
const foundNothing = (judged: ReadonlyMap<string, Judged>, id: string): boolean => {
  const evaluations = judged.get(id)?.evaluations ?? [];
  return (
    evaluations.some((e) => e.verdict === 'PASSED') &&
    !evaluations.some((e) => e.verdict === 'WARNING' || e.verdict === 'FAILED')
  );
};

/** A token a request found dead with no newer one issued (PixClient's renewal): how long it had worked. */
interface StoppedToken {
  readonly status: number;
  readonly workedSeconds: number;
}

const isStoppedToken = (value: unknown): value is StoppedToken =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as StoppedToken).workedSeconds === 'number' &&
  typeof (value as StoppedToken).status === 'number';

/**
 * TOKEN-LIFETIME-COVERS-RENEWAL over the whole run: a token any test found refused before the renewal
 * interval, with no newer token issued (`token.stopped-working`), joins the check as one more evaluation,
 * where the check was judged and found nothing. A provider whose tokens work once, or die when a newer one is
 * issued, has that finding instead (TOKEN-REUSE, TOKEN-SURVIVES-NEWER-TOKEN): one finding.
 */
export function withTokensStopped(
  judged: ReadonlyMap<string, Judged>,
  tests: readonly TestOutcome[],
): Map<string, Judged> {
  const flagged = (id: string) =>
    judged.get(id)?.evaluations.some((e) => e.verdict === 'WARNING' || e.verdict === 'FAILED') === true;
  if (!foundNothing(judged, tokenLifetime.id) || [tokenReusable.id, tokenSurvivesNewer.id].some(flagged))
    return new Map(judged);
  const stopped = tests
    .flatMap((t) => t.observations)
    .filter((o) => o.topic === 'token.stopped-working')
    .flatMap((o): StoppedToken[] => (isStoppedToken(o.value) ? [o.value] : []))
    .filter((t) => t.workedSeconds < RENEWAL_INTERVAL_SECONDS);
  const violations =
    stopped.length === 0
      ? []
      : [
          violation(
            'should',
            `a token accepted until the ${RENEWAL_INTERVAL_SECONDS}-second renewal interval`,
            `${stopped.length === 1 ? 'a token' : `${stopped.length} tokens`} refused with no newer token issued, after ${stopped.map((t) => `${t.workedSeconds} s (${t.status})`).join(', ')}; the requests went again with a new token`,
          ),
        ];
  return withWatched(judged, tokenLifetime.id, violations);
}

/**
 * The suite's own hash: of every check as it judges (id, title, clause, level, reason, remedy), so
 * that a signer tells apart two suites that carry one version number but judge differently.
 */
function catalogueHash(checks: readonly CheckDefinition[]): string {
  const judged = checks.map(({ id, title, clause, level, reason, remedy, money }) => [
    id,
    title,
    clause,
    level,
    reason,
    remedy,
    ...(money === undefined ? [] : [money]),
  ]);
  return createHash('sha256').update(JSON.stringify(judged)).digest('hex');
}

/**
 * The certification as written: this schema's version, complete when nothing was left unjudged for a
 * reason the person running it can remove, and scrubbed of secrets as a whole.
 */
export const certificationOf = ({
  verdict,
  exitCode,
  ...parts
}: Omit<Certification, 'schemaVersion' | 'complete'>): Certification =>
  redactJson<Certification>({
    schemaVersion: SCHEMA_VERSION,
    verdict,
    exitCode,
    complete: parts.incomplete.length === 0,
    ...parts,
  });

/** Tests that Playwright skipped before they recorded any check: a suite error must name them. */
const silentSkips = (tests: readonly TestOutcome[]): string[] =>
  tests.filter((t) => t.status === 'skipped' && t.evaluations.length === 0).map(titleOf);

export function buildCertification(input: CertificationInput): Certification {
  const { metadata } = input;
  const judged = withTokensStopped(
    withPacesWatched(
      withRefusalsWatched(
        withRootCauses(judgedByCheck(input.tests), input.checks, input.startTime.toISOString()),
        input.refusals ?? [],
      ),
      input.paces ?? [],
    ),
    input.tests,
  );
  const nothing: Judged = { evaluations: [], durationMs: 0 };
  const suiteErrors = [
    ...input.suiteErrors.map(({ test, message }) => ({ test, message: plain(message) })),
    ...testErrors(input.tests, new Set(input.checks.map((c) => c.id))),
  ];
  const facts: RunFacts = {
    lacked: lackedBy(input.tests.flatMap((t) => t.evaluations)),
    selection: metadata.selection,
    suiteErrors: suiteErrors.length,
  };
  const notJudged = new Map<string, NotJudged>();
  for (const check of input.checks) {
    const { evaluations } = judged.get(check.id) ?? nothing;
    if (evaluations.every((e) => e.verdict === 'SKIPPED'))
      notJudged.set(check.id, notJudgedOf(check, evaluations, facts));
  }
  const unjudged = [...notJudged]
    .filter(([id, n]) => n.cause === 'error' && (judged.get(id)?.evaluations.length ?? 0) === 0)
    .map(([id]) => id);
  if (facts.suiteErrors === 0 && unjudged.length > 0)
    suiteErrors.push(unjudgedError(unjudged, silentSkips(input.tests)));
  const checks = input.checks.map((check) =>
    checkResult(check, judged.get(check.id) ?? nothing, notJudged.get(check.id), facts),
  );
  const counts = { PASSED: 0, FAILED: 0, WARNING: 0, SKIPPED: 0 };
  for (const check of checks) counts[check.verdict] += 1;
  const incomplete = incompleteness(notJudged, metadata.selection);
  const verdict = overall(counts, suiteErrors, incomplete);
  const run = {
    ...(metadata.environmentName === undefined ? {} : { environmentName: metadata.environmentName }),
    runId: metadata.runId,
    suiteVersion: metadata.suiteVersion,
    catalogueHash: catalogueHash(input.checks),
    specVersion: metadata.specVersion,
    specHash: metadata.specHash,
    mode: metadata.mode,
    baseUrl: metadata.baseUrl,
    strict: metadata.strict,
    requireComplete: metadata.requireComplete,
    selection: metadata.selection,
    seed: metadata.seed,
    startTime: input.startTime.toISOString(),
    endTime: new Date(input.startTime.getTime() + input.durationMs).toISOString(),
    durationMs: Math.round(input.durationMs),
    options: metadata.options,
  };
  const observations = observationsOf(input.tests);
  const changes =
    input.baseline === undefined
      ? undefined
      : changesSince(input.baseline, { verdict, run, checks, observations });
  return certificationOf({
    verdict,
    exitCode: exitCodeOf(verdict, metadata, changes, checks),
    incomplete,
    run,
    counts,
    checks,
    coverage: coverageOf(checks, input.clauses),
    observations,
    suiteErrors,
    ...(changes === undefined ? {} : { changes }),
    ...(input.withdrawals === undefined ? {} : { withdrawals: input.withdrawals }),
  });
}
