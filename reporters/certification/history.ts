/**
 * The history of many runs, rendered: history.html (self-contained, under the certification's
 * Content-Security-Policy: an inline SVG chart, no script, nothing loaded) and the console table.
 * A section per environment (its name and base URL): its runs' verdicts first, failing runs marked,
 * then the chart and one row per check, one column per run, oldest first, the checks whose verdict
 * changed first. A legend says what each sign means.
 */
import { relative, sep } from 'node:path';
import type { Verdict } from '../../src/checks/vocabulary.ts';
import type { History, HistoryRow, HistoryRun, HistorySeries } from '../../src/report/history.ts';
import { visibleLine } from '../../src/base/visible.ts';
import { chip, escapeHtml, pageHead, SIGN, STYLE } from './html.ts';
import { type Layout, paint, tint } from './layout.ts';

/** Bottom to top in the chart's bars, and the order of the legend. */
const CHART_VERDICTS: readonly Verdict[] = ['PASSED', 'WARNING', 'FAILED', 'SKIPPED'];

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** `2026-11-25 18:40` from an ISO time: what a column needs to be told apart from its neighbours. */
const shortTime = (iso: string): string => iso.replace('T', ' ').slice(0, 16);

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The link from history.html's directory to a run's report, as a relative URL. */
function href(fromDir: string, path: string): string {
  return relative(fromDir, path).split(sep).map(encodeURIComponent).join('/');
}

/** A row's name: the check, and in a series that holds a matrix report its reading. */
const rowName = (row: HistoryRow): string =>
  row.reading === undefined ? row.id : `${row.id} · ${row.reading}`;

/** What each sign of the tables means, in one line. */
const LEGEND = `${CHART_VERDICTS.map((v) => `${SIGN[v]} ${v}`).join('  ')}  (blank: the run had no such check)`;

function sinceText(history: HistorySeries, row: HistoryRow): string {
  const latest = row.verdicts.findLast((v) => v !== undefined);
  const run = history.runs[row.since];
  if (latest === undefined || run === undefined) return '';
  return row.since === 0 && row.changes === 0
    ? `${latest} in every run`
    : `${latest} since #${row.since + 1}`;
}

// ---------------------------------------------------------------------------------------------
// history.html

const HISTORY_STYLE = `
.scroll { overflow-x: auto; }
table.history { width: auto; }
table.history td.cell { padding: 0; width: 1.4rem; min-width: 1.4rem; text-align: center; color: #fff; background: var(--v); font-weight: 700; }
table.history td.cell.none { background: #f6f8fa; color: #59636e; }
table.history th.run { padding: .2rem .1rem; vertical-align: bottom; }
table.history th.run a { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font-weight: 400; font-size: .8rem; text-decoration: none; }
table.history tr.divider td { background: #f6f8fa; font-weight: 600; }
tr.failing td { background: #ffebe9; font-weight: 600; }
p.legend { font-size: .9rem; }
td.id { white-space: nowrap; font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
svg.chart { width: 100%; max-width: 64rem; height: auto; border: 1px solid var(--line); border-radius: 6px; }
svg.chart text { font: 11px system-ui, sans-serif; fill: #1f2328; }
svg.chart .axis { stroke: #8c959f; stroke-width: 1; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .bar-PASSED { fill: var(--passed); } svg.chart .bar-WARNING { fill: var(--warning); }
svg.chart .bar-FAILED { fill: var(--failed); } svg.chart .bar-SKIPPED { fill: var(--skipped); }
svg.chart .duration { fill: none; stroke: #1f2328; stroke-width: 2; }
svg.chart .dot { fill: #fff; stroke: #1f2328; stroke-width: 1.5; }
@media print { table.history td.cell { print-color-adjust: exact; -webkit-print-color-adjust: exact; } }
`;

/** A round step for an axis from 0 to `max`, about `ticks` of them. */
function niceStep(max: number, ticks: number): number {
  const raw = Math.max(max, 1) / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  return Math.max(step, 1);
}

/** Counts per verdict as stacked bars, and the run's duration as a line on the right axis. */
export function historyChart(runs: readonly HistoryRun[]): string {
  const [width, height] = [960, 300];
  const [left, right, top, bottom] = [48, 56, 28, 40];
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const totals = runs.map((run) => CHART_VERDICTS.reduce((sum, v) => sum + run.counts[v], 0));
  const countStep = niceStep(Math.max(0, ...totals), 5);
  const countMax = countStep * Math.max(1, Math.ceil(Math.max(1, ...totals) / countStep));
  const durations = runs.map((run) => run.durationMs / 1000);
  const timeStep = niceStep(Math.max(0, ...durations), 5);
  const timeMax = timeStep * Math.max(1, Math.ceil(Math.max(1, ...durations) / timeStep));
  const slot = plotWidth / Math.max(1, runs.length);
  const barWidth = Math.max(1, slot * 0.7);
  const x = (index: number): number => left + slot * index + slot / 2;
  const yCount = (n: number): number => top + plotHeight - (n / countMax) * plotHeight;
  const yTime = (s: number): number => top + plotHeight - (s / timeMax) * plotHeight;
  const f = (n: number): string => n.toFixed(1);

  const grid: string[] = [];
  for (let n = 0; n <= countMax; n += countStep)
    grid.push(
      `<line class="grid" x1="${left}" x2="${width - right}" y1="${f(yCount(n))}" y2="${f(yCount(n))}"/>`,
      `<text x="${left - 6}" y="${f(yCount(n) + 4)}" text-anchor="end">${n}</text>`,
    );
  for (let s = 0; s <= timeMax; s += timeStep)
    grid.push(`<text x="${width - right + 6}" y="${f(yTime(s) + 4)}">${s} s</text>`);

  const bars = runs.map((run, index) => {
    let base = 0;
    const rects = CHART_VERDICTS.filter((v) => run.counts[v] > 0).map((verdict) => {
      const n = run.counts[verdict];
      const rect = `<rect class="bar-${verdict}" x="${f(x(index) - barWidth / 2)}" y="${f(yCount(base + n))}" width="${f(barWidth)}" height="${f(yCount(base) - yCount(base + n))}"/>`;
      base += n;
      return rect;
    });
    const counts = CHART_VERDICTS.map((v) => `${run.counts[v]} ${v}`).join(', ');
    const title = `#${index + 1} ${run.label}, ${shortTime(run.startTime)}: ${run.verdict}; ${counts}; ${seconds(run.durationMs)}`;
    return `<g><title>${escapeHtml(title)}</title>${rects.join('')}</g>`;
  });

  const labelEvery = Math.max(1, Math.ceil(runs.length / 20));
  const labels = runs
    .map((_, index) => index)
    .filter((index) => index % labelEvery === 0 || index === runs.length - 1)
    .map(
      (index) =>
        `<text x="${f(x(index))}" y="${height - bottom + 16}" text-anchor="middle">#${index + 1}</text>`,
    );

  const points = durations.map((s, index) => `${f(x(index))},${f(yTime(s))}`);
  const dots =
    runs.length <= 60
      ? durations.map((s, index) => `<circle class="dot" cx="${f(x(index))}" cy="${f(yTime(s))}" r="3"/>`)
      : [];

  const legend = [...CHART_VERDICTS.map((v) => [`bar-${v}`, v] as const)].map(
    ([cls, text], index) =>
      `<rect class="${cls}" x="${left + index * 110}" y="8" width="12" height="12"/><text x="${left + index * 110 + 16}" y="18">${text}</text>`,
  );
  legend.push(
    `<line class="duration" x1="${left + 440}" x2="${left + 464}" y1="14" y2="14"/><text x="${left + 470}" y="18">run time (right axis)</text>`,
  );

  return `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="Checks per verdict and run time across ${runs.length} runs" xmlns="http://www.w3.org/2000/svg">
<title>Checks per verdict (bars, left axis) and run time (line, right axis), oldest run first</title>
${grid.join('\n')}
<line class="axis" x1="${left}" x2="${width - right}" y1="${top + plotHeight}" y2="${top + plotHeight}"/>
${bars.join('\n')}
<polyline class="duration" points="${points.join(' ')}"/>
${dots.join('\n')}
${labels.join('\n')}
<text x="${left + plotWidth / 2}" y="${height - 6}" text-anchor="middle">runs, oldest first</text>
${legend.join('\n')}
</svg>`;
}

function runsTable(history: HistorySeries, outDir: string): string {
  const rows = history.runs.map(
    (run, index) =>
      `<tr${run.verdict === 'FAILED' ? ' class="failing" title="this run FAILED"' : ''}><td>${run.verdict === 'FAILED' ? `${SIGN.FAILED} ` : ''}#${index + 1}</td><td>${escapeHtml(shortTime(run.startTime))}</td><td><a href="${escapeHtml(href(outDir, run.report))}">${escapeHtml(run.label)}</a></td><td>${chip(run.verdict)}</td><td>${seconds(run.durationMs)}</td><td>${CHART_VERDICTS.map((v) => `${run.counts[v]} ${v}`).join(', ')}</td></tr>`,
  );
  return `<div class="scroll"><table>
<thead><tr><th>run</th><th>started</th><th>environment (its report)</th><th>verdict</th><th>run time</th><th>checks</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table></div>`;
}

function cell(verdict: Verdict | undefined, run: HistoryRun, index: number): string {
  const where = `#${index + 1} ${run.label}, ${shortTime(run.startTime)}`;
  if (verdict === undefined)
    return `<td class="cell none" title="${escapeHtml(`${where}: not in this run`)}"></td>`;
  return `<td class="cell v-${verdict}" title="${escapeHtml(`${where}: ${verdict}`)}">${SIGN[verdict]}</td>`;
}

function checksTable(history: HistorySeries, outDir: string): string {
  const heads = history.runs.map(
    (run, index) =>
      `<th class="run"><a href="${escapeHtml(href(outDir, run.report))}" title="${escapeHtml(`${run.label}: ${run.verdict}`)}">#${index + 1} ${escapeHtml(shortTime(run.startTime))} · ${escapeHtml(run.label)}</a></th>`,
  );
  const span = history.runs.length + 2;
  const changed = history.rows.filter((row) => row.changes > 0);
  const steady = history.rows.filter((row) => row.changes === 0);
  const line = (row: HistoryRow): string =>
    `<tr><td class="id" title="${escapeHtml(`${row.title} (${row.clause}, ${row.level})`)}">${escapeHtml(rowName(row))}</td>${row.verdicts
      .map((verdict, index) => {
        const run = history.runs[index];
        return run === undefined ? '' : cell(verdict, run, index);
      })
      .join(
        '',
      )}<td>${escapeHtml(sinceText(history, row))}${row.changes > 0 ? ` (${plural(row.changes, 'change')})` : ''}</td></tr>`;
  const divider = (text: string): string =>
    `<tr class="divider"><td colspan="${span}">${escapeHtml(text)}</td></tr>`;
  return `<div class="scroll"><table class="history">
<thead><tr><th>check</th>${heads.join('')}<th>latest</th></tr></thead>
<tbody>
${changed.length > 0 ? divider(`${plural(changed.length, 'check')} changed verdict`) : ''}
${changed.map(line).join('\n')}
${steady.length > 0 ? divider(`${plural(steady.length, 'check')} kept ${steady.length === 1 ? 'its' : 'their'} verdict`) : ''}
${steady.map(line).join('\n')}
</tbody></table></div>`;
}

const runCount = (history: History): number => history.series.reduce((sum, s) => sum + s.runs.length, 0);

function seriesSection(series: HistorySeries, index: number, outDir: string): string {
  const first = series.runs[0];
  const last = series.runs.at(-1);
  const changed = series.rows.filter((row) => row.changes > 0).length;
  const failed = series.runs.filter((run) => run.verdict === 'FAILED').length;
  const span =
    first === undefined || last === undefined
      ? ''
      : ` from ${escapeHtml(shortTime(first.startTime))} to ${escapeHtml(shortTime(last.startTime))}`;
  return `<section id="environment-${index + 1}">
<h2>${escapeHtml(series.name)}</h2>
<p>Base URL <code>${escapeHtml(series.baseUrl)}</code>: ${plural(series.runs.length, 'run')}${span}, ${plural(failed, 'failing run')}; ${plural(changed, 'check')} changed verdict.</p>
${runsTable(series, outDir)}
<h3>Verdicts and run time</h3>
${historyChart(series.runs)}
<h3>Checks</h3>
${checksTable(series, outDir)}
</section>`;
}

/** history.html; `outDir` is where it is written, from which every run's report is linked. */
export function renderHistoryHtml(history: History, outDir: string): string {
  const runs = runCount(history);
  const refused =
    history.refused.length === 0
      ? ''
      : `<div class="notice"><p>Left out, not certifications:</p><ul>${history.refused.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul></div>`;
  const environments = history.series
    .map(
      (series, index) =>
        `<li><a href="#environment-${index + 1}">${escapeHtml(series.name)}</a> (<code>${escapeHtml(series.baseUrl)}</code>): ${plural(series.runs.length, 'run')}, the latest ${chip(series.runs.at(-1)?.verdict ?? 'ERROR')}</li>`,
    )
    .join('');
  const duplicates =
    history.duplicates === 0 ? '' : ` (${plural(history.duplicates, 'run')} given twice, counted once)`;
  return `${pageHead(`History of ${plural(runs, 'run')}: Pix withdrawal certification`, `${STYLE}${HISTORY_STYLE}`)}
<body>
<h1>Pix withdrawal certification: history</h1>
<p>${plural(runs, 'run')}${duplicates} of ${plural(history.series.length, 'environment')}, each its own series; oldest run first, each linked to its report.</p>
<ul>${environments}</ul>
<p class="legend">Legend: ${escapeHtml(LEGEND)}; a run that FAILED is marked ${SIGN.FAILED} in red.</p>
${refused}
${history.series.map((series, index) => seriesSection(series, index, outDir)).join('\n')}
<footer>Written by pix-certify history from ${plural(runs, 'certification.json')}.</footer>
</body>
</html>
`;
}

// ---------------------------------------------------------------------------------------------
// The console

/** The table for a terminal: a section per environment, one character per run, coloured; the newest runs when not all fit. */
export function renderHistoryConsole(history: History, layout: Layout, written: string): string {
  const lines = history.series.flatMap((series) => [...seriesConsole(series, layout, written), '']);
  if (history.duplicates > 0) lines.push(`${plural(history.duplicates, 'run')} given twice, counted once.`);
  lines.push(`Legend: ${LEGEND}. Chart and links: ${visibleLine(written)}`);
  return `${lines.join('\n')}\n`;
}

function seriesConsole(history: HistorySeries, layout: Layout, written: string): string[] {
  const idWidth = Math.max(5, ...history.rows.map((row) => rowName(row).length));
  const sinceWidth = Math.max(0, ...history.rows.map((row) => sinceText(history, row).length));
  const room = Math.max(1, layout.width - idWidth - sinceWidth - 4);
  const shown = Math.min(history.runs.length, room);
  const from = history.runs.length - shown;
  const lines: string[] = [];
  lines.push(
    `${visibleLine(history.name)} (${visibleLine(history.baseUrl)}): ${plural(history.runs.length, 'run')}, oldest first${from > 0 ? `; the newest ${shown} fit here, all of them are in ${visibleLine(written)}` : ''}:`,
  );
  history.runs.forEach((run, index) => {
    if (index < from) return;
    const failed = run.verdict === 'FAILED' ? `${SIGN.FAILED} ` : '  ';
    lines.push(
      `${failed}#${String(index + 1).padEnd(4)} ${shortTime(run.startTime)}  ${paint(layout, run.verdict, 10)} ${seconds(run.durationMs).padStart(8)}  ${visibleLine(run.report)}`,
    );
  });
  lines.push('');
  const ruler = Array.from({ length: shown }, (_, i) => String((from + i + 1) % 10)).join('');
  lines.push(`${'check'.padEnd(idWidth)}  ${ruler}  latest`);
  const changed = history.rows.filter((row) => row.changes > 0);
  const row = (entry: HistoryRow): string => {
    const cells = entry.verdicts
      .slice(from)
      .map((verdict) => (verdict === undefined ? ' ' : tint(layout, verdict, SIGN[verdict])))
      .join('');
    return `${visibleLine(rowName(entry)).padEnd(idWidth)}  ${cells}  ${sinceText(history, entry)}`;
  };
  lines.push(...changed.map(row));
  if (changed.length > 0 && changed.length < history.rows.length)
    lines.push(`${'-'.repeat(idWidth)}  unchanged:`);
  lines.push(...history.rows.filter((entry) => entry.changes === 0).map(row));
  lines.push(`${plural(changed.length, 'check')} changed verdict in ${visibleLine(history.name)}.`);
  return lines;
}
