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
 * The text is already visible (no control character) and XML 1.0 allows the rest once escaped.
 */
import { groupErrors, whereText } from '../../src/report/errors.ts';
import type { Certification, CheckResult } from '../../src/report/model.ts';
import { environmentLabel, evidenceParts, levelText } from './text.ts';

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

function testCase(check: CheckResult, report: Certification): string {
  const open = `    <testcase classname="${xml(check.clause)}" name="${xml(`${check.id} ${check.title}`)}" time="${seconds(check.durationMs)}">`;
  const evidence = xml(evidenceText(check));
  const first = check.evidence?.[0];
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
  const { counts, run } = report;
  const errors = report.checks.filter(brokenBySuite).length;
  const skipped = counts.SKIPPED - errors;
  const totals = `tests="${report.checks.length}" failures="${counts.FAILED}" errors="${errors}" skipped="${skipped}" time="${seconds(run.durationMs)}"`;
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
      ...Object.fromEntries(report.incomplete.map((i) => [`incomplete.${i.cause}`, i.reason])),
    }).map(([name, value]) => `      <property name="${xml(name)}" value="${xml(value)}"/>`),
    '    </properties>',
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="pix-conformance" ${totals}>`,
    `  <testsuite name="pix-conformance ${xml(run.mode)} ${xml(run.baseUrl)}" ${totals} timestamp="${xml(run.startTime)}">`,
    ...properties,
    ...report.checks.map((check) => testCase(check, report)),
    ...systemErr,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
