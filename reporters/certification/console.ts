/**
 * The closing lines in the terminal: the changes since the baseline, every finding on one line,
 * the totals, the verdict and where the reports are. Capped: under forty lines whatever the run
 * found, and fourteen more at most for the changes. npm run compare prints the changes the same
 * way, uncapped.
 */
import type { Certification, Changes, Comparison, TestOutcome } from './model.ts';
import {
  capped,
  changeLines,
  changesHeadline,
  count,
  countsLine,
  driftNotice,
  errorLine,
  findingsOf,
  headline,
  oneLine,
  runChangeText,
  suiteChangedNotice,
  type ReportPaths,
} from './text.ts';

const FINDINGS_SHOWN = 20;
const ERRORS_SHOWN = 5;
const REASONS_SHOWN = 3;
const CHANGES_SHOWN = 8;

/** The changes since the baseline: a headline, then one line per change, regressions first. */
export function renderChanges(comparison: Comparison, limit = Number.POSITIVE_INFINITY): string[] {
  const notice = suiteChangedNotice(comparison);
  const run = comparison.run.map(runChangeText);
  const changes = changeLines(comparison);
  const left = changes.length - limit;
  return [
    changesHeadline(comparison),
    ...changes.slice(0, limit).map((l) => `  ${l.tag.padEnd(10)}  ${oneLine(l.text, 160)}`),
    ...(left > 0 ? [`  … and ${left} more, every one in certification.html and certification.json`] : []),
    ...(run.length === 0 ? [] : [`  Run differences: ${oneLine(run.join('; '), 200)}`]),
    ...(notice === undefined ? [] : [`  ${notice}`]),
  ];
}

function changesBlock(changes: Changes | undefined): string[] {
  if (changes === undefined) return [];
  const notice = driftNotice(changes);
  return [...renderChanges(changes, CHANGES_SHOWN), ...(notice === undefined ? [] : [`  ${notice}`]), ''];
}

export function renderConsole(report: Certification, paths: ReportPaths): string {
  const findings = findingsOf(report);
  const idWidth = Math.max(0, ...findings.slice(0, FINDINGS_SHOWN).map((c) => c.id.length));
  const lines = [
    ...changesBlock(report.changes),
    ...capped(
      findings,
      FINDINGS_SHOWN,
      (c) => `${c.verdict.padEnd(7)}  ${c.id.padEnd(idWidth)}  ${c.clause}  ${headline(c)}`,
    ),
    ...capped(report.suiteErrors, ERRORS_SHOWN, (e) => `ERROR    ${oneLine(errorLine(e), 160)}`),
    '',
    countsLine(report),
    ...(report.complete
      ? []
      : [
          'Incomplete certification: checks were skipped for reasons you can remove:',
          ...capped(
            report.incomplete,
            REASONS_SHOWN,
            (i) => `  ${count(i.checks.length, 'check')}: ${oneLine(i.reason, 160)}`,
          ),
        ]),
    `Verdict: ${report.verdict}`,
    `Reports: ${paths.html}`,
    `         ${paths.json}`,
    `         ${paths.markdown}`,
    `         ${paths.junit}`,
  ];
  return `\n${lines.join('\n')}\n`;
}

const VERDICT_ORDER = ['FAILED', 'WARNING', 'PASSED', 'SKIPPED'] as const;

/**
 * One line per test as it ends, with the worst verdict of the checks it judged: a test that found a
 * FAILED check still "passes" for Playwright, so Playwright's own progress would say the wrong thing.
 */
export function progressLine(outcome: TestOutcome, title: string, done: number, total: number): string {
  const failedRun = outcome.status !== 'passed' && outcome.status !== 'skipped';
  const verdicts = new Set(outcome.evaluations.map((e) => e.verdict));
  const worst = failedRun ? 'ERROR' : (VERDICT_ORDER.find((v) => verdicts.has(v)) ?? 'PASSED');
  const error = failedRun ? `\n           ${oneLine(outcome.errors[0] ?? outcome.status, 160)}` : '';
  return `[${String(done).padStart(String(total).length)}/${total}] ${worst.padEnd(7)}  ${title}${error}\n`;
}
