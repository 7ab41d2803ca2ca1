/**
 * summary.md, also appended to GITHUB_STEP_SUMMARY: the verdict, the changes since the baseline
 * and the findings at a glance. GitHub renders HTML inside Markdown, so text that came from the
 * environment is escaped.
 */
import type { Certification, Changes } from './model.ts';
import {
  capped,
  changeLines,
  changesHeadline,
  count,
  driftNotice,
  errorLine,
  findingsOf,
  headline,
  oneLine,
  runChangeText,
  suiteChangedNotice,
  type ReportPaths,
} from './text.ts';

const FINDINGS_SHOWN = 30;
const ERRORS_SHOWN = 10;
const CHANGES_SHOWN = 30;

const escapeMarkdown = (text: string): string =>
  text.replace(/[\\`*_[\]<>|#!&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c] ?? `\\${c}`);

function changesSection(changes: Changes | undefined): string[] {
  if (changes === undefined) return [];
  const notices = [suiteChangedNotice(changes), driftNotice(changes)].filter((n) => n !== undefined);
  return [
    '',
    '### Changes since the baseline',
    '',
    escapeMarkdown(changesHeadline(changes)),
    ...notices.flatMap((notice) => ['', `> ${escapeMarkdown(notice)}`]),
    '',
    ...capped(
      changeLines(changes),
      CHANGES_SHOWN,
      (l) =>
        `- ${l.tag === 'REGRESSION' ? '**REGRESSION**' : l.tag}: ${escapeMarkdown(oneLine(l.text, 300))}`,
    ),
    ...changes.run.map((c) => `- run: ${escapeMarkdown(runChangeText(c))}`),
  ];
}

export function renderMarkdown(report: Certification, paths: ReportPaths): string {
  const { run } = report;
  const findings = findingsOf(report);
  const lines = [
    `## Pix withdrawal certification: ${report.verdict}`,
    '',
    `Exit code ${report.exitCode} · ${run.mode} mode against ${escapeMarkdown(run.baseUrl)} · spec ${escapeMarkdown(run.specVersion)} (sha256 ${run.specHash.slice(0, 12)}) · suite ${escapeMarkdown(run.suiteVersion)}${run.seed === undefined ? '' : ` · seed ${run.seed}`} · ${run.startTime} (${(run.durationMs / 1000).toFixed(1)} s)`,
    ...changesSection(report.changes),
    '',
    '| Verdict | Checks |',
    '|---|---:|',
    ...(['FAILED', 'WARNING', 'PASSED', 'SKIPPED'] as const).map((v) => `| ${v} | ${report.counts[v]} |`),
    ...(report.suiteErrors.length === 0 ? [] : [`| suite errors | ${report.suiteErrors.length} |`]),
    ...(report.complete
      ? []
      : [
          '',
          '> **Incomplete certification**: checks were skipped for reasons you can remove:',
          ...report.incomplete.map(
            (i) => `> - ${count(i.checks.length, 'check')}: ${escapeMarkdown(oneLine(i.reason, 300))}`,
          ),
        ]),
    ...(findings.length === 0
      ? []
      : [
          '',
          '### Findings',
          '',
          ...capped(
            findings,
            FINDINGS_SHOWN,
            (c) =>
              `- **${c.verdict}** \`${c.id}\` (${escapeMarkdown(c.clause)}): ${escapeMarkdown(headline(c))}`,
          ),
        ]),
    ...(report.suiteErrors.length === 0
      ? []
      : [
          '',
          '### Suite errors',
          '',
          ...capped(
            report.suiteErrors,
            ERRORS_SHOWN,
            (e) => `- ${escapeMarkdown(oneLine(errorLine(e), 300))}`,
          ),
        ]),
    '',
    `Reports: ${[paths.html, paths.json, paths.markdown].map(escapeMarkdown).join(', ')}`,
    '',
  ];
  return lines.join('\n');
}
