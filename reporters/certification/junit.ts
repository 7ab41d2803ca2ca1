/**
 * JUnit XML with one test case per check, not per Playwright test: a CI system then shows the
 * checks that FAILED as failures and those SKIPPED as skipped, with their clause and evidence.
 * JUnit has no warning, so a WARNING is a passing case whose system-out starts with "WARNING".
 */
import type { Certification, CheckResult } from './model.ts';

function xml(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // XML 1.0 forbids most control characters even when escaped.
      // eslint-disable-next-line no-control-regex -- matching control characters is the point here.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

function evidenceText(check: CheckResult): string {
  return (check.evidence ?? [])
    .map((e) =>
      [e.reason, e.expected && `expected: ${e.expected}`, e.actual && `actual: ${e.actual}`, e.reproduction]
        .filter(Boolean)
        .join('\n'),
    )
    .join('\n\n');
}

function testCase(check: CheckResult): string {
  const open = `    <testcase classname="${xml(check.clause)}" name="${xml(`${check.id} ${check.title}`)}" time="0">`;
  const evidence = xml(evidenceText(check));
  switch (check.verdict) {
    case 'FAILED':
      return `${open}\n      <failure message="${xml(check.evidence?.[0]?.actual ?? check.title)}" type="FAILED">${evidence}</failure>\n    </testcase>`;
    case 'SKIPPED':
      return `${open}\n      <skipped message="${xml(check.evidence?.[0]?.reason ?? 'not run')}"/>\n    </testcase>`;
    case 'WARNING':
      return `${open}\n      <system-out>WARNING ${evidence}</system-out>\n    </testcase>`;
    case 'PASSED':
      return `${open}</testcase>`;
  }
}

export function renderJunit(report: Certification): string {
  const { counts, run } = report;
  const total = counts.PASSED + counts.WARNING + counts.FAILED + counts.SKIPPED;
  const errors = report.suiteErrors.map(
    (e) =>
      `    <testcase classname="suite" name="${xml(e.test ?? 'outside any test')}" time="0">\n      <error message="${xml(e.message)}"/>\n    </testcase>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="pix-conformance" tests="${total + errors.length}" failures="${counts.FAILED}" errors="${errors.length}" skipped="${counts.SKIPPED}" time="${(run.durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="pix-conformance ${xml(run.mode)} ${xml(run.baseUrl)}" tests="${total + errors.length}" failures="${counts.FAILED}" errors="${errors.length}" skipped="${counts.SKIPPED}" timestamp="${xml(run.startTime)}" time="${(run.durationMs / 1000).toFixed(3)}">`,
    ...report.checks.map(testCase),
    ...errors,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
