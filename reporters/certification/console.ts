/**
 * The closing lines in the terminal: the changes since the baseline, every FAILED and WARNING check
 * with what was expected and what came back (in full, wrapped to the terminal), the suite errors
 * once per cause with their fix, the checks not judged grouped by reason, the totals, the verdict
 * and where the report is. npm run compare prints the changes the same way.
 */
import { groupErrors, whereText } from '../../src/report/errors.ts';
import { labelled, paint, wrap, type Layout } from './layout.ts';
import type { Certification, CheckResult, Comparison, TestOutcome } from '../../src/report/model.ts';
import {
  changeLines,
  changesHeadline,
  count,
  countsLine,
  driftNotice,
  environmentLabel,
  evidenceParts,
  cellFindingsOf,
  levelText,
  moreFindingsText,
  otherSkips,
  runChangeText,
  skipGroups,
  suiteChangedNotice,
  verdictChangeNotice,
  verdictMeaning,
  type ReportPaths,
} from './text.ts';
import { withdrawalLine } from '../../src/report/withdrawals.ts';

/** Findings and notes hang under the verdict column. */
const HANG = ' '.repeat(9);
/** Wide enough for the longest label, `what to do`, and a space. */
const LABEL_WIDTH = 12;
const CHANGES_SHOWN = 8;

/** The changes since the baseline: a headline, then one entry per change, regressions first. */
export function renderChanges(
  comparison: Comparison,
  width: number,
  limit = Number.POSITIVE_INFINITY,
): string[] {
  const verdict = verdictChangeNotice(comparison);
  const notice = suiteChangedNotice(comparison);
  const run = comparison.run.map(runChangeText);
  const changes = changeLines(comparison);
  const left = changes.length - limit;
  return [
    ...wrap(changesHeadline(comparison), width),
    ...(verdict === undefined ? [] : wrap(verdict, width, '  ')),
    ...changes.slice(0, limit).flatMap((l) => labelled(l.tag.padEnd(12), l.text, width, '  ')),
    ...(left > 0
      ? wrap(`… and ${left} more, every one in certification.html and certification.json`, width, '  ')
      : []),
    ...(run.length === 0 ? [] : labelled('Run differences  ', run.join('; '), width, '  ')),
    ...(notice === undefined ? [] : wrap(notice, width, '  ')),
  ];
}

function changesBlock(report: Certification, width: number): string[] {
  if (report.changes === undefined) return [];
  const notice = driftNotice(report.changes);
  return [
    ...renderChanges(report.changes, width, CHANGES_SHOWN),
    ...(notice === undefined ? [] : wrap(notice, width, '  ')),
    '',
  ];
}

function finding({ check, reading }: { check: CheckResult; reading?: string }, layout: Layout): string[] {
  const first = check.evidence?.[0];
  const more = moreFindingsText(check, first === undefined ? 0 : 1);
  const where = reading === undefined ? '' : ` · reading ${reading}`;
  return [
    ...wrap(
      `${check.id}${where} · ${check.clause} · level ${levelText(check)}`,
      layout.width,
      HANG,
      `${paint(layout, check.verdict, 7)}  `,
    ),
    ...wrap(check.title, layout.width, HANG),
    ...(first === undefined ? [] : evidenceParts(first)).flatMap(([label, text]) =>
      labelled(label.padEnd(LABEL_WIDTH), text, layout.width, HANG),
    ),
    ...(check.remedy === undefined
      ? []
      : labelled('what to do'.padEnd(LABEL_WIDTH), check.remedy, layout.width, HANG)),
    ...(more === undefined ? [] : wrap(more, layout.width, HANG)),
  ];
}

function errors(report: Certification, layout: Layout): string[] {
  return groupErrors(report.suiteErrors).flatMap((group) => [
    ...wrap(`${whereText(group)}: ${group.cause}`, layout.width, HANG, `${paint(layout, 'ERROR', 7)}  `),
    ...(group.fix === undefined ? [] : labelled('fix'.padEnd(LABEL_WIDTH), group.fix, layout.width, HANG)),
  ]);
}

function skipped(report: Certification, layout: Layout): string[] {
  return skipGroups(otherSkips(report)).flatMap((group) => [
    ...wrap(
      `${count(group.checks.length, 'check')}: ${group.reason}`,
      layout.width,
      HANG,
      `${paint(layout, 'SKIPPED', 7)}  `,
    ),
    ...wrap(group.checks.join(', '), layout.width, HANG),
  ]);
}

function incomplete(report: Certification, width: number): string[] {
  if (report.complete) return [];
  return [
    `Incomplete: checks were not judged, for ${count(report.incomplete.length, 'reason')} you can remove`,
    ...report.incomplete.flatMap((i) =>
      labelled(`${count(i.checks.length, 'check')}: `, i.reason, width, '  '),
    ),
  ];
}

/** The environment's label, with its base URL when the label is another. */
function environmentName(report: Certification): string {
  const label = environmentLabel(report);
  return label === report.run.baseUrl ? label : `${label} (${report.run.baseUrl})`;
}

/** A matrix report's columns, each with its own verdict. */
function readingsLine(report: Certification, layout: Layout): string[] {
  if (report.readings === undefined) return [];
  const columns = report.readings.map((r) => `${r.name} ${paint(layout, r.verdict)}`).join(', ');
  return wrap(columns, layout.width, HANG, 'Readings: ');
}

/** Blocks separated by one empty line; empty blocks leave no trace. */
const blocks = (...parts: string[][]): string[] =>
  parts.filter((p) => p.length > 0).flatMap((p, i) => (i === 0 ? p : ['', ...p]));

/** The probes' observations the console tells, by topic, under the label a person reads. */
const PROBES: ReadonlyMap<string, string> = new Map([
  ['webhook.retry', 'Retry probe: '],
  ['token.lifetime-probe', 'Lifetime probe: '],
]);

/** Whether a token outlives a newer one: the revocation the suite tries, as its check judged it. */
const REVOCATION = 'TOKEN-SURVIVES-NEWER-TOKEN';

/** Where the webhooks went and what the probes found: told here, not only in the JSON and HTML. */
function probes(report: Certification, width: number): string[] {
  const collection = report.run.options.webhookCollection;
  const revocation = report.checks.find((c) => c.id === REVOCATION);
  const revoked =
    revocation?.verdict === 'PASSED'
      ? 'a token still worked after a newer one was issued'
      : revocation?.verdict === 'WARNING'
        ? 'issuing a newer token ended the earlier one (the WARNING above)'
        : undefined;
  return [
    ...(typeof collection === 'string' ? wrap(collection, width, HANG, 'Webhooks: ') : []),
    ...report.observations.flatMap((o) => {
      const label = PROBES.get(o.topic);
      return label === undefined || o.note === undefined ? [] : wrap(o.note, width, HANG, label);
    }),
    ...(revoked === undefined ? [] : wrap(revoked, width, HANG, 'Revocation: ')),
  ];
}

export function renderConsole(report: Certification, paths: ReportPaths, layout: Layout): string {
  const { width } = layout;
  const lines = blocks(
    changesBlock(report, width),
    cellFindingsOf(report).flatMap((c) => finding(c, layout)),
    errors(report, layout),
    skipped(report, layout),
    [
      ...wrap(environmentName(report), width, HANG, 'Environment: '),
      ...wrap(countsLine(report), width),
      ...readingsLine(report, layout),
      ...probes(report, width),
      ...(report.withdrawals === undefined ? [] : wrap(withdrawalLine(report.withdrawals), width, HANG)),
      ...incomplete(report, width),
      `Verdict: ${paint(layout, report.verdict)}`,
      ...wrap(verdictMeaning(report), width, HANG),
      ...wrap(paths.html, width, HANG, 'Report:  '),
      ...wrap(`${paths.json}, ${paths.markdown}, ${paths.junit}`, width, HANG, 'Also:    '),
    ],
  );
  return `\n${lines.join('\n')}\n`;
}

/**
 * A step a test announces while it waits (the webhook), told as it begins, under the progress
 * lines: a run that is quiet for fifteen seconds says why.
 */
export function stepLine(title: string, layout: Layout): string {
  return `${wrap(title, layout.width, HANG, `${'…'.padEnd(7)}  `).join('\n')}\n`;
}

const VERDICT_ORDER = ['FAILED', 'WARNING', 'PASSED', 'SKIPPED'] as const;

/**
 * One line per test as it ends, with the worst verdict of the checks it judged: a test that found a
 * FAILED check still "passes" for Playwright, so Playwright's own progress would say the wrong thing.
 * A test that broke gets its cause on the next lines, or, when an earlier test broke the same way,
 * a pointer to it: a time-out that breaks forty tests is told once.
 */
export function progressLine(
  outcome: TestOutcome,
  title: string,
  position: string,
  layout: Layout,
  error: { readonly cause: string; readonly sameAs?: string } | undefined,
): string {
  const failedRun = outcome.status !== 'passed' && outcome.status !== 'skipped';
  const verdicts = new Set(outcome.evaluations.map((e) => e.verdict));
  const worst = failedRun ? 'ERROR' : (VERDICT_ORDER.find((v) => verdicts.has(v)) ?? 'PASSED');
  const head = `${position} ${paint(layout, worst, 7)}  `;
  const indent = ' '.repeat(position.length + 10);
  const detail =
    error === undefined
      ? []
      : wrap(
          error.sameAs === undefined ? error.cause : `the same error as ${error.sameAs}`,
          layout.width,
          indent,
        );
  return `${[...wrap(title, layout.width, indent, head), ...detail].join('\n')}\n`;
}
