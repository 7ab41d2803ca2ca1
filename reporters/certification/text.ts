/** Plain-text pieces shared by the console, Markdown and HTML summaries and npm run compare. */
import { LATE_DELAY_RULE, regressionsFirst, unchanged } from './compare.ts';
import type {
  Certification,
  Changes,
  CheckChange,
  CheckResult,
  Comparison,
  ObservationChange,
  RunChange,
  SuiteError,
} from './model.ts';

export interface ReportPaths {
  readonly html: string;
  readonly json: string;
  readonly markdown: string;
  readonly junit: string;
}

/** Collapses whitespace and cuts to `max` characters, so that one finding stays one line. */
export function oneLine(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What went wrong in one line: what came back, else why it was not judged. */
export function headline(check: CheckResult): string {
  const first = check.evidence?.[0];
  return oneLine(first?.actual ?? first?.reason ?? first?.expected ?? check.title);
}

export const errorLine = (error: SuiteError): string =>
  `${error.test ?? 'outside any test'}: ${error.message}`;

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

/** The first `limit` items and a line saying how many were left out. */
export function capped<T>(items: readonly T[], limit: number, line: (item: T) => string): string[] {
  const shown = items.slice(0, limit).map(line);
  return items.length > limit ? [...shown, `… and ${items.length - limit} more`] : shown;
}

/** How a change is tagged in every format: regressions stand out, improvements are told apart. */
export type ChangeTag = 'REGRESSION' | 'improved' | 'changed';

export interface ChangeLine {
  readonly tag: ChangeTag;
  readonly text: string;
}

function checkChangeText(change: CheckChange): string {
  const before = change.before ?? '';
  const after = change.after ?? '';
  switch (change.kind) {
    case 'new':
      return `${change.id}: new check, ${after}`;
    case 'removed':
      return `${change.id}: no longer in the suite (was ${before})`;
    case 'now-skipped':
      return `${change.id}: ${before} → SKIPPED, no longer judged`;
    case 'now-judged':
      return `${change.id}: SKIPPED → ${after}, judged again`;
    case 'regressed':
    case 'improved':
      return `${change.id}: ${before} → ${after}`;
  }
}

function observationChangeText(change: ObservationChange): string {
  const { topic } = change;
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

/** Every change of the checks and observations, regressions first. */
export function changeLines(comparison: Comparison): ChangeLine[] {
  return regressionsFirst([...comparison.checks, ...comparison.observations]).map((change) => ({
    tag: tagOf(change),
    text: 'id' in change ? checkChangeText(change) : observationChangeText(change),
  }));
}

export const runChangeText = (change: RunChange): string =>
  `${change.source}: ${change.field} ${change.before} → ${change.after}`;

/** The first line of every changes section: against what, and how much changed. */
export function changesHeadline(comparison: Comparison): string {
  const { baseline } = comparison;
  const since = `since the baseline of ${baseline.startTime} (${baseline.verdict}, ${baseline.baseUrl})`;
  if (unchanged(comparison)) return `No change ${since} in the checks or the observations.`;
  const others = comparison.checks.length + comparison.observations.length - comparison.regressions;
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
