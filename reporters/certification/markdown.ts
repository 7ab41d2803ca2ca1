/**
 * summary.md, also appended to GITHUB_STEP_SUMMARY: the verdict and what it means, the changes
 * since the baseline, every FAILED and WARNING check with what was expected and what came back, the
 * suite errors once per cause, the checks not judged grouped by reason, and where the report is.
 * GitHub renders HTML inside Markdown, so text that came from the environment is escaped; nothing
 * is cut, as the reader of a step summary has no other copy at hand.
 */
import { groupErrors, whereText } from '../../src/report/errors.ts';
import type { Certification, Changes, CheckResult, ReadingCell } from '../../src/report/model.ts';
import { SIGN } from './html.ts';
import {
  changeLines,
  changesHeadline,
  count,
  driftNotice,
  environmentLabel,
  evidenceParts,
  cellFindingsOf,
  flat,
  levelText,
  moreFindingsText,
  otherSkips,
  runChangeText,
  skipExpected,
  skipGroups,
  suiteChangedNotice,
  verdictChangeNotice,
  verdictMeaning,
  type ReportPaths,
} from './text.ts';
import { withdrawalLine } from '../../src/report/withdrawals.ts';

const escapeMarkdown = (text: string): string =>
  flat(text).replace(/[\\`*_[\]<>|#!&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c] ?? `\\${c}`);

function changesSection(changes: Changes | undefined): string[] {
  if (changes === undefined) return [];
  const notices = [verdictChangeNotice(changes), suiteChangedNotice(changes), driftNotice(changes)].filter(
    (n) => n !== undefined,
  );
  return [
    '',
    '### Changes since the baseline',
    '',
    escapeMarkdown(changesHeadline(changes)),
    ...notices.flatMap((notice) => ['', `> ${escapeMarkdown(notice)}`]),
    '',
    ...changeLines(changes).map(
      (l) => `- ${l.tag === 'REGRESSION' ? '**REGRESSION**' : l.tag}: ${escapeMarkdown(l.text)}`,
    ),
    ...changes.run.map((c) => `- run: ${escapeMarkdown(runChangeText(c))}`),
  ];
}

function finding({ check, reading }: { check: CheckResult; reading?: string }): string[] {
  const evidence = check.evidence ?? [];
  const more = moreFindingsText(check, evidence.length);
  const where = reading === undefined ? '' : ` in reading \`${escapeMarkdown(reading)}\``;
  return [
    `- **${check.verdict}** \`${check.id}\`${where} ${escapeMarkdown(check.title)} (${escapeMarkdown(check.clause)}; level ${escapeMarkdown(levelText(check))})`,
    ...evidence.flatMap((item) =>
      evidenceParts(item).map(([label, text]) => `  - ${label}: ${escapeMarkdown(text)}`),
    ),
    ...(check.remedy === undefined ? [] : [`  - what to do: ${escapeMarkdown(check.remedy)}`]),
    ...(more === undefined ? [] : [`  - ${escapeMarkdown(more)}`]),
  ];
}

/** A matrix report's checks × readings: each cell its verdict, a skip another reading made up for in brackets. */
function matrixSection(report: Certification): string[] {
  const readings = report.readings;
  if (readings === undefined) return [];
  const cell = (row: CheckResult, c: ReadingCell): string =>
    skipExpected(report, row, c) ? `(${SIGN.SKIPPED})` : `${SIGN[c.verdict]} ${c.verdict}`;
  return [
    '',
    '### Checks × readings',
    '',
    `| Check | ${readings.map((r) => `\`${escapeMarkdown(r.name)}\``).join(' | ')} |`,
    `|---|${readings.map(() => ':---:').join('|')}|`,
    `| **the reading** | ${readings.map((r) => `**${SIGN[r.verdict]} ${r.verdict}**`).join(' | ')} |`,
    ...report.checks.map(
      (row) => `| \`${row.id}\` | ${(row.readings ?? []).map((c) => cell(row, c)).join(' | ')} |`,
    ),
    '',
    `(${SIGN.SKIPPED}): SKIPPED in that reading only, the check being judged in another.`,
    '',
    ...readings.map((r) => `- \`${escapeMarkdown(r.name)}\`: ${escapeMarkdown(r.description)}`),
  ];
}

function section(title: string, lines: readonly string[]): string[] {
  return lines.length === 0 ? [] : ['', `### ${title}`, '', ...lines];
}

export function renderMarkdown(report: Certification, paths: ReportPaths): string {
  const { run } = report;
  const lines = [
    `## ${escapeMarkdown(environmentLabel(report))}: Pix withdrawal certification ${report.verdict}`,
    '',
    escapeMarkdown(verdictMeaning(report)),
    '',
    `${run.mode} mode against ${escapeMarkdown(run.baseUrl)}${run.runId === undefined ? '' : ` · run ${escapeMarkdown(run.runId)}`} · spec ${escapeMarkdown(run.specVersion)} (sha256 ${run.specHash.slice(0, 12)}) · suite ${escapeMarkdown(run.suiteVersion)}${run.seed === undefined ? '' : ` · seed ${run.seed}`} · ${run.startTime} (${(run.durationMs / 1000).toFixed(1)} s)`,
    ...changesSection(report.changes),
    '',
    '| Verdict | Checks |',
    '|---|---:|',
    ...(['FAILED', 'WARNING', 'PASSED', 'SKIPPED'] as const).map((v) => `| ${v} | ${report.counts[v]} |`),
    ...(report.suiteErrors.length === 0 ? [] : [`| suite errors | ${report.suiteErrors.length} |`]),
    ...(report.withdrawals === undefined ? [] : ['', escapeMarkdown(withdrawalLine(report.withdrawals))]),
    ...(report.complete
      ? []
      : [
          '',
          `> **Incomplete certification**, for ${count(report.incomplete.length, 'reason')}`,
          ...report.incomplete.map(
            (i) => `> - ${count(i.checks.length, 'check')}. ${escapeMarkdown(i.reason)}`,
          ),
        ]),
    ...matrixSection(report),
    ...section('Findings', cellFindingsOf(report).flatMap(finding)),
    ...section(
      'Suite errors',
      groupErrors(report.suiteErrors).flatMap((g) => [
        `- ${escapeMarkdown(`${whereText(g)}: ${g.cause}`)}`,
        ...(g.fix === undefined ? [] : [`  - fix: ${escapeMarkdown(g.fix)}`]),
      ]),
    ),
    ...section(
      'Not judged',
      skipGroups(otherSkips(report)).map(
        (g) =>
          `- ${count(g.checks.length, 'check')} (${g.checks.map((id) => `\`${id}\``).join(', ')}). ${escapeMarkdown(g.reason)}`,
      ),
    ),
    '',
    `Report: ${escapeMarkdown(paths.html)} (also ${[paths.json, paths.markdown, paths.junit].map(escapeMarkdown).join(', ')})`,
    '',
  ];
  return lines.join('\n');
}
