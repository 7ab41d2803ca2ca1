/** Plain-text pieces shared by the console and Markdown summaries. */
import type { Certification, CheckResult, SuiteError } from './model.ts';

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
