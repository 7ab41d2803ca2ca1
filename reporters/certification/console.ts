/**
 * The closing lines in the terminal: every finding on one line, the totals, the verdict and where
 * the reports are. Capped so that it stays under forty lines whatever the run found.
 */
import type { Certification, TestOutcome } from './model.ts';
import {
  capped,
  count,
  countsLine,
  errorLine,
  findingsOf,
  headline,
  oneLine,
  type ReportPaths,
} from './text.ts';

const FINDINGS_SHOWN = 20;
const ERRORS_SHOWN = 5;
const REASONS_SHOWN = 3;

export function renderConsole(report: Certification, paths: ReportPaths): string {
  const findings = findingsOf(report);
  const idWidth = Math.max(0, ...findings.slice(0, FINDINGS_SHOWN).map((c) => c.id.length));
  const lines = [
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
