/**
 * JUnit XML with exactly one test case per check, not per Playwright test: a CI system then shows
 * the checks that FAILED as failures and those SKIPPED as skipped, with their clause and evidence.
 * - JUnit has no warning, so a WARNING is a passing case whose system-out starts with "WARNING".
 * - Suite errors are no check, so they never become test cases of their own: a check that was not
 *   judged because the suite went wrong is an error case carrying the errors, and the test suite's
 *   system-err lists every error once per cause.
 * - A case's time is the summed duration of the tests that evaluated the check.
 * - The test suite's properties carry the environment first (PIX_ENV_NAME, else the base URL), then
 *   the run's verdict (INCOMPLETE included) and its exit code.
 * - A WARNING's output names the level that produced it: a `must` check warns only where the
 *   document is ambiguous, which is a `should`.
 * - A matrix report (pix-certify client --readings) has one test case per check and reading, the
 *   reading in its class name and name; a cell SKIPPED because only another reading can exercise
 *   the check is skipped saying so.
 * The text is already visible (no control character) and XML 1.0 allows the rest once escaped.
 */
import { groupErrors, whereText } from '../../src/report/errors.ts';
import type { Certification, CheckResult } from '../../src/report/model.ts';
import { cellCheck, environmentLabel, evidenceParts, levelText, skipExpected } from './text.ts';

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function evidenceText(check: CheckResult): string {
  const findings = (check.evidence ?? []).map((e) =>
    [...evidenceParts(e).map(([label, text]) => `${label}: ${text}`), e.reproduction]
      .filter(Boolean)
      .join('\n'),
  );
  return [...findings, ...(check.remedy === undefined ? [] : [`what to do: ${check.remedy}`])].join('\n\n');
}

function errorsText(report: Certification): string {
  return groupErrors(report.suiteErrors)
    .map((g) => `${whereText(g)}: ${g.cause}${g.fix === undefined ? '' : `\nfix: ${g.fix}`}`)
    .join('\n\n');
}

/** A check that no test judged because the suite went wrong: an error, not a skip. */
const brokenBySuite = (check: CheckResult): boolean =>
  check.verdict === 'SKIPPED' && check.notJudged?.cause === 'error';

/** A check, or a check in one reading of a matrix report: what one test case stands for. */
interface Case {
  readonly check: CheckResult;
  readonly reading?: string;
  /** A matrix cell SKIPPED because only another reading can exercise the check. */
  readonly elsewhere?: boolean;
}

function casesOf(report: Certification): Case[] {
  if (report.readings === undefined) return report.checks.map((check) => ({ check }));
  return report.checks.flatMap((row) =>
    (row.readings ?? []).map((cell) => ({
      check: cellCheck(row, cell),
      reading: cell.reading,
      elsewhere: skipExpected(report, row, cell),
    })),
  );
}

function testCase({ check, reading, elsewhere }: Case, report: Certification): string {
  const [classname, name] =
    reading === undefined
      ? [check.clause, `${check.id} ${check.title}`]
      : [`${reading} ${check.clause}`, `${check.id} ${check.title} (reading ${reading})`];
  const open = `    <testcase classname="${xml(classname)}" name="${xml(name)}" time="${seconds(check.durationMs)}">`;
  const evidence = xml(evidenceText(check));
  const first = check.evidence?.[0];
  if (elsewhere === true)
    return `${open}\n      <skipped message="${xml(`SKIPPED in this reading only, judged in another: ${first?.reason ?? 'not judged'}`)}"/>\n    </testcase>`;
  if (brokenBySuite(check))
    return `${open}\n      <error message="${xml(first?.reason ?? 'not judged')}" type="ERROR">${xml(errorsText(report))}</error>\n    </testcase>`;
  switch (check.verdict) {
    case 'FAILED':
      return `${open}\n      <failure message="${xml(`expected ${first?.expected ?? '?'}; actual ${first?.actual ?? '?'}`)}" type="FAILED">${evidence}</failure>\n    </testcase>`;
    case 'SKIPPED':
      return `${open}\n      <skipped message="${xml(first?.reason ?? 'not judged')}"/>\n    </testcase>`;
    case 'WARNING':
      return `${open}\n      <system-out>WARNING (level ${xml(levelText(check))})\n${evidence}</system-out>\n    </testcase>`;
    case 'PASSED':
      return `${open}</testcase>`;
  }
}

export function renderJunit(report: Certification): string {
  const { run } = report;
  const cases = casesOf(report);
  const checks = cases.map((c) => c.check);
  const errors = checks.filter(brokenBySuite).length;
  const failures = checks.filter((c) => c.verdict === 'FAILED').length;
  const skipped = checks.filter((c) => c.verdict === 'SKIPPED').length - errors;
  const totals = `tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(run.durationMs)}"`;
  const systemErr =
    report.suiteErrors.length === 0 ? [] : [`    <system-err>${xml(errorsText(report))}</system-err>`];
  // The run's verdict, which no test case carries: a CI showing only cases would call INCOMPLETE green.
  const properties = [
    '    <properties>',
    ...Object.entries({
      environment: environmentLabel(report),
      baseUrl: run.baseUrl,
      ...(run.runId === undefined ? {} : { runId: run.runId }),
      verdict: report.verdict,
      exitCode: String(report.exitCode),
      complete: String(report.complete),
      // A matrix report may give one cause for several sets of readings: each keeps its own property.
      ...Object.fromEntries(
        report.incomplete.map((i) => [
          `incomplete.${i.cause}${i.readings === undefined ? '' : `.${i.readings.join(',')}`}`,
          i.reason,
        ]),
      ),
    }).map(([name, value]) => `      <property name="${xml(name)}" value="${xml(value)}"/>`),
    '    </properties>',
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="pix-conformance" ${totals}>`,
    `  <testsuite name="pix-conformance ${xml(run.mode)} ${xml(run.baseUrl)}" ${totals} timestamp="${xml(run.startTime)}">`,
    ...properties,
    ...cases.map((c) => testCase(c, report)),
    ...systemErr,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
