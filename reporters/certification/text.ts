/** Plain-text pieces shared by the console, Markdown and HTML summaries and npm run compare. */
import { LATE_DELAY_RULE, regressionsFirst, unchanged } from '../../src/report/compare.ts';
import type {
  Certification,
  Changes,
  CheckChange,
  CheckResult,
  Comparison,
  Evidence,
  ObservationChange,
  ReadingCell,
  ReadingChange,
  RunChange,
} from '../../src/report/model.ts';

export interface ReportPaths {
  readonly html: string;
  readonly json: string;
  readonly markdown: string;
  readonly junit: string;
}

/** Whitespace collapsed, so that a multi-line message reads as one paragraph; nothing is cut. */
export const flat = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** A matrix row without what belongs to its cells: the check as defined, with its run's totals. */
const definitionOf = ({
  readings: _readings,
  notJudged: _notJudged,
  evidence: _evidence,
  evidenceCount: _count,
  ...check
}: CheckResult): CheckResult => check;

/** A row's cell as a check of that reading alone: its verdict and evidence, the row's definition. */
export function cellCheck(row: CheckResult, cell: ReadingCell): CheckResult {
  return {
    ...definitionOf(row),
    verdict: cell.verdict,
    ...(cell.notJudged === undefined ? {} : { notJudged: cell.notJudged }),
    ...(cell.evidence === undefined ? {} : { evidence: cell.evidence }),
    ...(cell.evidenceCount === undefined ? {} : { evidenceCount: cell.evidenceCount }),
  };
}

/**
 * The findings every summary lists: FAILED, then WARNING; in a matrix report each cell that found one,
 * with its reading, and in a plain report each check (its reading undefined).
 */
export function cellFindingsOf(report: Certification): { reading?: string; check: CheckResult }[] {
  if (report.readings === undefined) return findingsOf(report).map((check) => ({ check }));
  const cells = report.checks.flatMap((row) =>
    (row.readings ?? []).map((cell) => ({ reading: cell.reading, check: cellCheck(row, cell) })),
  );
  return [
    ...cells.filter((c) => c.check.verdict === 'FAILED'),
    ...cells.filter((c) => c.check.verdict === 'WARNING'),
  ];
}

/**
 * A SKIPPED cell that leaves nothing unjudged: the check is judged in another reading, no cause of
 * INCOMPLETE names it for this reading, and the suite did not go wrong there.
 */
export function skipExpected(report: Certification, row: CheckResult, cell: ReadingCell): boolean {
  return (
    cell.verdict === 'SKIPPED' &&
    row.verdict !== 'SKIPPED' &&
    cell.notJudged?.cause !== 'error' &&
    !report.incomplete.some((i) => i.checks.includes(row.id) && (i.readings ?? []).includes(cell.reading))
  );
}

/** A row a reader must open: a cell that did not pass, but for skips that leave nothing unjudged. */
export const rowNeedsReading = (report: Certification, row: CheckResult): boolean =>
  (row.readings ?? []).some((cell) => cell.verdict !== 'PASSED' && !skipExpected(report, row, cell));

/** FAILED checks first, then WARNING: the order every summary lists findings in. */
export const findingsOf = (report: Certification): CheckResult[] => [
  ...report.checks.filter((c) => c.verdict === 'FAILED'),
  ...report.checks.filter((c) => c.verdict === 'WARNING'),
];

/** `1 check`, `2 checks`. */
export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function countsLine(report: Certification): string {
  const { counts, suiteErrors } = report;
  const total = counts.PASSED + counts.WARNING + counts.FAILED + counts.SKIPPED;
  const errors = suiteErrors.length > 0 ? `; ${count(suiteErrors.length, 'suite error')}` : '';
  return `${count(total, 'check')}: ${counts.FAILED} failed, ${count(counts.WARNING, 'warning')}, ${counts.PASSED} passed, ${counts.SKIPPED} skipped${errors}`;
}

/**
 * The level as it produced the verdict. A `must` check warns where the document is ambiguous (it
 * names one status and lists others): that finding is a `should`, and says so rather than claim "must".
 */
export function levelText(check: CheckResult): string {
  const level =
    check.verdict === 'WARNING' && check.level === 'must'
      ? 'should here, as the document is ambiguous on this point (must where it is clear)'
      : check.level;
  return check.money === undefined || (check.verdict !== 'WARNING' && check.verdict !== 'FAILED')
    ? level
    : `${level}; MONEY AT RISK (${check.money}): fails the gate whatever its level`;
}

/** The findings that can cost money, which fail the gate whatever their level, in a sentence; '' without any. */
function moneyText(report: Certification): string {
  const risky = findingsOf(report).filter((c) => c.money !== undefined);
  return risky.length === 0
    ? ''
    : `Money at risk: ${risky.map((c) => `${c.id} (${c.money ?? ''})`).join(', ')}, which fails the gate whatever its level. `;
}

/** How every report names the environment first: its PIX_ENV_NAME label, or else its base URL. */
export const environmentLabel = (report: Certification): string =>
  report.run.environmentName ?? report.run.baseUrl;

/** The first words of a text up to about `max` characters, cut between words, never inside one. */
export function firstWords(text: string, max: number): string {
  const line = flat(text);
  if (line.length <= max) return line;
  const cut = line.lastIndexOf(' ', max);
  return `${line.slice(0, cut > max / 2 ? cut : max)} …`;
}

/** Why a FAILED check failed, in one line for the verdict banner: what came back, else why it was expected. */
export function whyLine(check: CheckResult, max = 160): string {
  const first = check.evidence?.[0];
  const why =
    first?.actual === undefined
      ? check.reason
      : first.expected === undefined
        ? first.actual
        : `expected ${first.expected}; got ${first.actual}`;
  return firstWords(why, max);
}

/** A finding's text as shown: never blank, and never a line that ends in ":" with nothing after it. */
function shownText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '(empty)';
  return trimmed.endsWith(':') ? `${trimmed} (empty)` : trimmed;
}

/** One finding of a check as labelled parts: what was expected and what came back, or why it was skipped. */
export function evidenceParts(evidence: Evidence): [label: string, text: string][] {
  if (evidence.verdict === 'SKIPPED') return [['skipped', shownText(evidence.reason ?? 'no reason given')]];
  return [
    ...(evidence.expected === undefined
      ? []
      : [['expected', shownText(evidence.expected)] as [string, string]]),
    ['actual', shownText(evidence.actual ?? '')],
    ...(evidence.reason === undefined ? [] : [['note', shownText(evidence.reason)] as [string, string]]),
  ];
}

/** What a summary showing `shown` of a check's findings says of the rest: the same numbers in every format. */
export function moreFindingsText(check: CheckResult, shown: number): string | undefined {
  const kept = check.evidence?.length ?? 0;
  const total = check.evidenceCount ?? kept;
  const inReports = kept - shown;
  const notKept = total - kept;
  if (total <= shown) return undefined;
  const dropped = `kept by no report (each keeps the first ${kept} of ${total})`;
  const where =
    notKept <= 0
      ? ', in certification.html and certification.json'
      : inReports <= 0
        ? `, ${dropped}`
        : `: ${inReports} in certification.html and certification.json, ${notKept} ${dropped}`;
  return `and ${count(total - shown, 'more distinct finding')}${where}`;
}

export interface SkipGroup {
  /** The reason, as the checks' first evidence gives it. */
  readonly reason: string;
  readonly checks: readonly string[];
}

/** SKIPPED checks grouped by their reason: one reason shown once, with every check it covers. */
export function skipGroups(checks: readonly CheckResult[]): SkipGroup[] {
  const groups = new Map<string, string[]>();
  for (const check of checks.filter((c) => c.verdict === 'SKIPPED')) {
    const reason = check.evidence?.[0]?.reason ?? 'no reason given';
    groups.set(reason, [...(groups.get(reason) ?? []), check.id]);
  }
  return [...groups].map(([reason, ids]) => ({ reason, checks: ids }));
}

/** Skips that leave the certification incomplete are told with their cause; the others here. */
export const otherSkips = (report: Certification): CheckResult[] =>
  report.checks.filter(
    (c) =>
      c.verdict === 'SKIPPED' &&
      c.notJudged !== undefined &&
      (c.notJudged.cause === 'outcome' || c.notJudged.cause === 'error' || c.notJudged.cause === 'reading'),
  );

/** What the verdict means and the exit code it gives, for every summary; findings that can cost money first. */
export function verdictMeaning(report: Certification): string {
  return `${moneyText(report)}${meaningOfVerdict(report)}`;
}

function meaningOfVerdict(report: Certification): string {
  const exit = `Exit code ${report.exitCode}`;
  switch (report.verdict) {
    case 'FAILED':
      return `${count(report.counts.FAILED, 'check')} of the document failed. ${exit}.`;
    case 'ERROR':
      return `The suite itself went wrong (${count(report.suiteErrors.length, 'suite error')}), so this run certifies nothing. ${exit}.`;
    case 'INCOMPLETE': {
      const mock =
        report.run.mode === 'mock'
          ? 'A run against the embedded mock certifies nothing about a provider. '
          : '';
      const gate =
        report.exitCode === 0
          ? '; PIX_REQUIRE_COMPLETE=1 makes it 1'
          : report.run.mode === 'live' && !report.run.strict
            ? '; a live run fails closed (PIX_REQUIRE_COMPLETE=0 makes it 0)'
            : '';
      const why =
        report.run.mode === 'client'
          ? "Checks were not judged: the client's run did not exercise them, or a finding held them back"
          : report.incomplete.some((i) => i.cause === 'environment')
            ? "Checks were not judged, some because of the environment's answers"
            : 'Checks were not judged, for reasons you can remove';
      return `${mock}${why}: this is no certification. ${exit}${gate}.`;
    }
    case 'WARNING':
      return `No check failed; ${count(report.counts.WARNING, 'check')} warned. ${exit}${report.exitCode === 0 ? '; PIX_STRICT=1 makes a warning exit 1' : ''}.`;
    case 'PASSED':
      // Only a check that another reading exercises (pix-certify client) is SKIPPED in a complete run.
      return report.counts.SKIPPED === 0
        ? `Every check was judged, and none failed or warned. ${exit}.`
        : `Every check this run could exercise was judged, and none failed or warned; ${count(report.counts.SKIPPED, 'check')} SKIPPED, which only another reading exercises (--readings all). ${exit}.`;
  }
}

/** How a change is tagged in every format: regressions stand out, improvements are told apart. */
export type ChangeTag = 'REGRESSION' | 'improved' | 'changed';

export interface ChangeLine {
  readonly tag: ChangeTag;
  readonly text: string;
}

/** A name as a change tells it: in a matrix report, with the reading it changed in. */
const inReading = (name: string, reading: string | undefined): string =>
  reading === undefined ? name : `${name} in reading ${reading}`;

function checkChangeText(change: CheckChange): string {
  const before = change.before ?? '';
  const after = change.after ?? '';
  const id = inReading(change.id, change.reading);
  switch (change.kind) {
    case 'new':
      return `${id}: new check, ${after}`;
    case 'removed':
      return `${id}: no longer in the suite (was ${before})`;
    case 'now-skipped':
      return `${id}: ${before} → SKIPPED, no longer judged`;
    case 'now-judged':
      return `${id}: SKIPPED → ${after}, judged again`;
    case 'regressed':
    case 'improved':
      return `${id}: ${before} → ${after}`;
  }
}

function readingChangeText(change: ReadingChange): string {
  return change.kind === 'added'
    ? `reading ${change.reading}: run in this report only (${change.verdict}), so its cells are not compared`
    : `reading ${change.reading}: run in the baseline only (${change.verdict}), so its cells are not compared`;
}

function observationChangeText(change: ObservationChange): string {
  const topic = inReading(change.topic, change.reading);
  const field = change.field ?? '';
  const before = change.before ?? '';
  const after = change.after ?? '';
  switch (change.kind) {
    case 'field-removed':
      return `${topic}: field ${field} (${before}) disappeared`;
    case 'field-added':
      return `${topic}: new field ${field} (${after})`;
    case 'type-changed':
      return `${topic}: field ${field} changed type, ${before} → ${after}`;
    case 'value-changed':
      return `${topic}: ${before} → ${after}`;
    case 'list-changed':
      return `${topic}: ${[before && `no longer lists ${before}`, after && `now lists ${after}`].filter(Boolean).join('; ')}`;
    case 'later':
      return `${topic}: the webhook arrives later, ${before} → ${after} (beyond ${LATE_DELAY_RULE})`;
    case 'first-observed':
      return `${topic}: newly observed, ${after}`;
    case 'no-longer-observed':
      return `${topic}: no longer observed (was ${before})`;
  }
}

const tagOf = (change: CheckChange | ObservationChange): ChangeTag => {
  if (change.regression) return 'REGRESSION';
  return change.kind === 'improved' ? 'improved' : 'changed';
};

/** Every change of the checks and observations, regressions first, then the readings only one side ran. */
export function changeLines(comparison: Comparison): ChangeLine[] {
  return [
    ...regressionsFirst([...comparison.checks, ...comparison.observations]).map((change) => ({
      tag: tagOf(change),
      text: 'id' in change ? checkChangeText(change) : observationChangeText(change),
    })),
    ...(comparison.readings ?? []).map((change) => ({
      tag: 'changed' as const,
      text: readingChangeText(change),
    })),
  ];
}

export const runChangeText = (change: RunChange): string =>
  `${change.source}: ${change.field} ${change.before} → ${change.after}`;

/** The first line of every changes section: against what, and how much changed. */
export function changesHeadline(comparison: Comparison): string {
  const { baseline } = comparison;
  const since = `since the baseline of ${baseline.startTime} (${baseline.verdict}, ${baseline.baseUrl})`;
  if (unchanged(comparison)) return `No change ${since} in the checks or the observations.`;
  const others =
    comparison.checks.length +
    comparison.observations.length +
    (comparison.readings ?? []).length -
    comparison.regressions;
  return `Changes ${since}: ${count(comparison.regressions, 'regression')}, ${count(others, 'other change')}.`;
}

/** Said whenever the suite itself differs, so that its changes are not blamed on the environment. */
export function suiteChangedNotice(comparison: Comparison): string | undefined {
  if (!comparison.suiteChanged) return undefined;
  const fields = comparison.run.filter((c) => c.source === 'suite').map((c) => c.field);
  return `The suite differs from the baseline's (${fields.join(', ')}): a change may come from the suite, not the environment.`;
}

/** Said when PIX_FAIL_ON_DRIFT=1 turned a regression into a failed run. */
export function driftNotice(changes: Changes): string | undefined {
  return changes.failOnDrift && changes.regressions > 0
    ? 'PIX_FAIL_ON_DRIFT=1: a regression since the baseline fails the run (exit code 1).'
    : undefined;
}

/**
 * Said when the run's verdict moved. INCOMPLETE is about how much was judged, not about the
 * environment: PASSED → INCOMPLETE lost coverage, INCOMPLETE → FAILED judged what it could not.
 */
export function verdictChangeNotice(comparison: Comparison): string | undefined {
  const { before, after } = comparison.verdict;
  // Between PASSED, WARNING and FAILED the checks' own changes tell it.
  const untold = (v: string): boolean => v === 'INCOMPLETE' || v === 'ERROR';
  if (before === after || !(untold(before) || untold(after))) return undefined;
  const judged = (v: string): boolean => v === 'PASSED' || v === 'WARNING' || v === 'FAILED';
  const why =
    after === 'INCOMPLETE' && judged(before)
      ? ': this run judged fewer checks than the baseline (see the checks no longer judged), which says nothing about the environment getting worse'
      : before === 'INCOMPLETE' && judged(after)
        ? ': this run judged checks the baseline could not'
        : after === 'ERROR'
          ? ': the suite went wrong in this run, so a change may come from the suite, not the environment'
          : '';
  return `The run's verdict moved from ${before} to ${after}${why}.`;
}
