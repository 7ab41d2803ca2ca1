/**
 * certification.html: the report a person reads and signs off. One file that loads nothing (the
 * Content-Security-Policy forbids it), so it can be archived, mailed and printed as is: no script,
 * no external style, font, image or link.
 *
 * In the order the signer needs it: the environment's name and the verdict, with the FAILED checks
 * and why the run is incomplete; then the failures with what to do, the warnings, and what could
 * not be tested grouped by reason; then the changes since the baseline, the coverage, the
 * observations, the environment and the run; what passed is folded away; last, the sign-off block.
 * Printed on A4, no card is cut between pages.
 */
import type { Verdict } from '../../src/checks/vocabulary.ts';
import { groupErrors, whereRaised, whereText } from '../../src/report/errors.ts';
import type {
  Certification,
  CheckResult,
  Evidence,
  OverallVerdict,
  ReadingCell,
} from '../../src/report/model.ts';
import {
  changeLines,
  changesHeadline,
  count,
  countsLine,
  driftNotice,
  environmentLabel,
  evidenceParts,
  firstWords,
  levelText,
  runChangeText,
  skipGroups,
  suiteChangedNotice,
  verdictChangeNotice,
  verdictMeaning,
  moreFindingsText,
  cellCheck,
  rowNeedsReading,
  skipExpected,
  whyLine,
  type ChangeTag,
} from './text.ts';
import { withdrawalLine } from '../../src/report/withdrawals.ts';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** Verdicts carry a sign as well as a colour, so they survive a black-and-white print. */
export const SIGN: Readonly<Record<OverallVerdict | Verdict, string>> = {
  PASSED: '✓',
  WARNING: '!',
  FAILED: '✗',
  SKIPPED: '–',
  INCOMPLETE: '◐',
  ERROR: '⚠',
};

/** The reports' look, shared with history.html. */
export const STYLE = `
:root { --passed: #1a7f37; --warning: #9a6700; --failed: #cf222e; --skipped: #6e7781; --incomplete: #0550ae; --error: #8250df; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; max-width: 75rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; border-bottom: 1px solid var(--line); padding-bottom: .3rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 0 0 .3rem; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
code, pre { font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; border: 1px solid var(--line); padding: .5rem; margin: .2rem 0 .6rem; }
nav a { margin-right: 1rem; }
.banner { color: #fff; padding: 1rem 1.5rem; border-radius: 6px; margin-bottom: 1rem; }
.banner .environment { font-size: 1.1rem; font-weight: 600; margin: 0; }
.banner .word { font-size: 2.2rem; font-weight: 700; letter-spacing: .05em; margin: 0; }
.banner p { margin: .2rem 0; }
.banner a { color: inherit; }
.banner ul { margin: .2rem 0 .4rem; padding-left: 1.2rem; }
.banner h2 { font-size: 1rem; border: 0; margin: .6rem 0 0; padding: 0; }
.notice { border-left: 4px solid var(--warning); background: #fff8c5; padding: .5rem 1rem; }
.remedy { border-left: 4px solid var(--incomplete); background: #ddf4ff; padding: .4rem .8rem; margin: .4rem 0; }
.chip { display: inline-block; border-radius: 1rem; padding: 0 .55rem; margin: .1rem; color: #fff; font: 12px/1.6 ui-monospace, Menlo, Consolas, monospace; text-decoration: none; white-space: nowrap; }
.v-PASSED { --v: var(--passed); } .v-WARNING { --v: var(--warning); } .v-FAILED { --v: var(--failed); }
.v-SKIPPED { --v: var(--skipped); } .v-INCOMPLETE { --v: var(--incomplete); } .v-ERROR { --v: var(--error); }
.banner, .chip { background: var(--v); }
article { border: 1px solid var(--line); border-left: 6px solid var(--v); border-radius: 6px; padding: .8rem 1rem; margin: .8rem 0; }
.meta { color: #59636e; margin: 0 0 .4rem; }
dl.evidence { margin: .5rem 0; padding-top: .5rem; border-top: 1px dashed var(--line); }
dl.evidence dt { font-weight: 600; }
dl.evidence dd { margin: 0; }
.uncovered td { color: #59636e; font-style: italic; }
.sign-off { border: 2px solid #1f2328; border-radius: 6px; padding: 1rem 1.5rem; margin-top: 2rem; }
.sign-off h2 { margin-top: 0; }
.sign-off table th { width: 14rem; }
.sign-off .line { display: inline-block; min-width: 18rem; border-bottom: 1px solid #1f2328; height: 2.2rem; }
footer { margin-top: 2rem; color: #59636e; font-size: .85rem; }
table.matrix th.reading { padding: .3rem .1rem; vertical-align: bottom; text-align: center; width: 2.6rem; background: var(--v); color: #fff; }
table.matrix th.reading span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
table.matrix td.cell { text-align: center; vertical-align: top; color: #fff; font-weight: 700; background: var(--v); }
table.matrix td.cell.expected { background: #f6f8fa; color: var(--skipped); }
table.matrix details > summary { cursor: pointer; }
table.matrix h4 { font-size: .95rem; margin: .6rem 0 .2rem; }
dl.readings dt { font-weight: 600; }
dl.readings dd { margin: 0 0 .3rem; }
@page { size: A4; margin: 15mm 12mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  nav { display: none; }
  .banner, .chip, .remedy, td.cell, th.reading { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  article, tr, .banner, .remedy, dl.evidence, .sign-off { break-inside: avoid; }
  h2, h3, h2 + p { break-after: avoid; }
  .sign-off { display: block; break-before: page; }
}
@media print { details::details-content { content-visibility: visible; display: block; } }
`;

/** Nothing loads: no script, no external style, font or image; only the page's own style. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

export const chip = (verdict: OverallVerdict | Verdict, text: string = verdict): string =>
  `<span class="chip v-${verdict}" title="${verdict}">${SIGN[verdict]} ${escapeHtml(text)}</span>`;

const anchor = (id: string): string => `check-${id.replace(/[^A-Za-z0-9-]/g, '-')}`;

const chipLink = (id: string, verdict: Verdict): string =>
  `<a class="chip v-${verdict}" title="${verdict}" href="#${anchor(id)}">${SIGN[verdict]} ${escapeHtml(id)}</a>`;

/** The environment as every report names it first: its label, with the base URL when the label is another. */
function environmentLine(report: Certification): string {
  const label = environmentLabel(report);
  const url = label === report.run.baseUrl ? '' : ` · <code>${escapeHtml(report.run.baseUrl)}</code>`;
  return `<p class="environment">${escapeHtml(label)}${url}</p>`;
}

/** The checks of one finding verdict, each with a one-line why, linked to its card. */
function findingList(report: Certification, verdict: 'FAILED' | 'WARNING'): string {
  const found = report.checks.filter((c) => c.verdict === verdict);
  if (found.length === 0) return '';
  const items = found.map(
    (c) =>
      `<li><a href="#${anchor(c.id)}"><code>${escapeHtml(c.id)}</code></a> ${escapeHtml(c.title)}: ${escapeHtml(whyLine(c))}</li>`,
  );
  const [title, listClass] = verdict === 'FAILED' ? ['Failed', 'failed-list'] : ['Warnings', 'warning-list'];
  return `\n<h2>${title}</h2>\n<ul class="${listClass}">\n${items.join('\n')}\n</ul>`;
}

/**
 * The FAILED checks, each with a one-line why, linked to its card; when none failed, the warnings so.
 * A matrix report's matrix follows the banner and shows them in their readings instead.
 */
function failedList(report: Certification): string {
  if (report.readings !== undefined) return '';
  return findingList(report, 'FAILED') || findingList(report, 'WARNING');
}

/** Why the run is INCOMPLETE: one line per reason the person running the suite can remove. */
function incompleteList(report: Certification): string {
  if (report.complete) return '';
  const items = report.incomplete.map(
    (i) => `<li>${count(i.checks.length, 'check')} not judged: ${escapeHtml(i.reason)}</li>`,
  );
  return `\n<h2>Incomplete because</h2>\n<ul class="incomplete-list">\n${items.join('\n')}\n</ul>`;
}

/** Why the suite itself went wrong: one line per cause. */
function errorList(report: Certification): string {
  if (report.suiteErrors.length === 0) return '';
  const items = groupErrors(report.suiteErrors).map(
    (g) => `<li>${escapeHtml(whereText(g))}: ${escapeHtml(firstWords(g.cause, 160))}</li>`,
  );
  return `\n<h2>Suite errors</h2>\n<ul>\n${items.join('\n')}\n</ul>`;
}

function banner(report: Certification): string {
  const since = report.changes === undefined ? '' : `\n<p>${escapeHtml(changesHeadline(report.changes))}</p>`;
  const money =
    report.withdrawals === undefined
      ? ''
      : `\n<p class="money">${escapeHtml(withdrawalLine(report.withdrawals))}</p>`;
  return `<header class="banner v-${report.verdict}">
${environmentLine(report)}
<p class="word">${SIGN[report.verdict]} ${report.verdict}</p>
<p>${escapeHtml(verdictMeaning(report))}</p>
<p>${escapeHtml(countsLine(report))}</p>${money}${since}${failedList(report)}${errorList(report)}${incompleteList(report)}
</header>`;
}

/** A regression reads like a failure, an improvement like a pass, any other change is neutral. */
const TAG_COLOUR: Readonly<Record<ChangeTag, Verdict>> = {
  REGRESSION: 'FAILED',
  improved: 'PASSED',
  changed: 'SKIPPED',
};

function changes(report: Certification): string {
  if (report.changes === undefined) return '';
  const notices = [
    verdictChangeNotice(report.changes),
    suiteChangedNotice(report.changes),
    driftNotice(report.changes),
  ]
    .filter((n) => n !== undefined)
    .map((n) => `<div class="notice"><p>${escapeHtml(n)}</p></div>`);
  const rows = [
    ...changeLines(report.changes).map(
      (l) => `<tr><td>${chip(TAG_COLOUR[l.tag], l.tag)}</td><td>${escapeHtml(l.text)}</td></tr>`,
    ),
    ...report.changes.run.map(
      (c) => `<tr><td>${chip('SKIPPED', 'run')}</td><td>${escapeHtml(runChangeText(c))}</td></tr>`,
    ),
  ];
  const table =
    rows.length === 0
      ? ''
      : `\n<table>
<thead><tr><th>Change</th><th>What</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
  return `<section id="changes"><h2>Changes since the baseline (${count(report.changes.regressions, 'regression')})</h2>
<p>${escapeHtml(changesHeadline(report.changes))}</p>
${notices.join('\n')}${table}</section>`;
}

/** The run's options as a person reads them, each with the variable that sets it. */
const OPTION_LABELS: Readonly<Record<string, string>> = {
  allowPayouts: 'Withdrawals allowed (PIX_ALLOW_PAYOUTS)',
  allowInsecure: 'Plain http to another host allowed (PIX_ALLOW_INSECURE)',
  amount: 'Amount of each withdrawal, BRL (PIX_AMOUNT)',
  tokenField: 'Field of the token in the token response (PIX_TOKEN_FIELD)',
  payeeKeyType: "Payee's Pix key type (PIX_PAYEE_KEY_TYPE)",
  webhookTimeoutMs: 'Wait for a webhook (PIX_WEBHOOK_TIMEOUT_MS)',
  webhookCollection: 'How webhooks were collected',
  webhookRetryWaitMs: 'Wait for a refused webhook to come again (PIX_WEBHOOK_RETRY_WAIT_S)',
  // Reports written before webhookCollection: the address alone.
  webhookPublicUrl: 'Address the provider posts webhooks to (PIX_WEBHOOK_PUBLIC_URL)',
  requestTimeoutMs: 'Bound on every request (PIX_REQUEST_TIMEOUT_MS)',
  maxPayouts: 'Most withdrawals the run may send (PIX_MAX_PAYOUTS)',
  maxTotal: 'Most the run may pay out, BRL (PIX_MAX_TOTAL)',
  subject: 'What was certified (client: a command; handler: a handler alone)',
  handlerTimeoutMs: "The handler's time to answer a webhook (the simulator's limit)",
  PIX_CLIENT_TIMEOUT_S: 'Time limit of the command (PIX_CLIENT_TIMEOUT_S, --timeout)',
  PIX_CLIENT_WEBHOOK_WAIT_S:
    "Longest wait for the simulator's webhooks after the command (PIX_CLIENT_WEBHOOK_WAIT_S)",
};

function optionValue(name: string, value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (name.endsWith('Ms')) return `${value} ms`;
  return name.endsWith('_S') ? `${value} s` : String(value);
}

function table(id: string, title: string, rows: readonly (readonly [string, string])[]): string {
  const body = rows.map(
    ([name, value]) =>
      `<tr><th scope="row">${escapeHtml(name)}</th><td><code>${escapeHtml(value)}</code></td></tr>`,
  );
  return `<section id="${id}"><h2>${title}</h2>
<table>
${body.join('\n')}
</table></section>`;
}

const MODE_LABELS: Readonly<Record<Certification['run']['mode'], string>> = {
  live: 'live: a provider',
  mock: 'mock: the embedded mock, no provider',
  client: "client: an integrator's client and webhook handler, against the simulator",
};

/** What was certified: the environment and what the run was allowed to do there. */
function environment(report: Certification): string {
  const { run } = report;
  return table('environment', 'Environment', [
    ['Name (PIX_ENV_NAME)', run.environmentName ?? 'not named'],
    ['Base URL (PIX_BASE_URL)', run.baseUrl],
    ['Mode', MODE_LABELS[run.mode]],
    ...Object.entries(run.options).map(([name, value]): [string, string] => [
      OPTION_LABELS[name] ?? name,
      optionValue(name, value),
    ]),
  ]);
}

/** A matrix report's readings each ran in a namespace of their own, which its columns name. */
const runIdText = (report: Certification): string =>
  report.run.runId ??
  (report.readings === undefined
    ? 'not recorded'
    : report.readings.map((r) => `${r.name}: ${r.runId}`).join(', '));

/** Which suite judged it, when, and how to replay it. */
function runMetadata(report: Certification): string {
  const { run } = report;
  return table('run', 'Run', [
    ['Run id (in every withdrawal code and ledger line)', runIdText(report)],
    ['Suite version', run.suiteVersion],
    ['Suite checks hash (sha256 of the catalogue)', run.catalogueHash ?? 'not recorded'],
    ['Spec version', run.specVersion],
    ['Spec hash (sha256)', run.specHash],
    ['Selection', run.selection.length === 0 ? 'the whole suite' : run.selection.join(' ')],
    ['Strict (a WARNING or INCOMPLETE run fails, PIX_STRICT)', run.strict ? 'yes' : 'no'],
    ['Complete required (an INCOMPLETE run fails, PIX_REQUIRE_COMPLETE)', run.requireComplete ? 'yes' : 'no'],
    ['Seed (PIX_SEED replays the invented values)', String(run.seed ?? 'not recorded')],
    ['Started', run.startTime],
    ['Ended', run.endTime],
    ['Duration', `${(run.durationMs / 1000).toFixed(1)} s`],
    ['Report schema version', String(report.schemaVersion)],
  ]);
}

/** Filled in by hand on the printed page: what is signed, and the lines to sign it on. */
function signOff(report: Certification): string {
  const { run } = report;
  const facts: [string, string][] = [
    ['Environment', environmentLabel(report)],
    ['Base URL', run.baseUrl],
    [
      'Suite',
      `version ${run.suiteVersion}${run.catalogueHash === undefined ? '' : `, checks sha256 ${run.catalogueHash}`}`,
    ],
    ['Spec', `version ${run.specVersion}, sha256 ${run.specHash}`],
    ['Run id', runIdText(report)],
    ['Date of the run', run.startTime],
    ['Verdict', `${report.verdict} (${countsLine(report)})`],
    ...(report.withdrawals === undefined
      ? []
      : [['Withdrawals', withdrawalLine(report.withdrawals)] as [string, string]]),
  ];
  const blanks = ['Name', 'Role', 'Signature', 'Date'];
  return `<section id="sign-off" class="sign-off"><h2>Sign-off</h2>
<table>
${facts.map(([name, value]) => `<tr><th scope="row">${name}</th><td><code>${escapeHtml(value)}</code></td></tr>`).join('\n')}
${blanks.map((name) => `<tr><th scope="row">${name}</th><td><span class="line"></span></td></tr>`).join('\n')}
</table></section>`;
}

function coverage(report: Certification): string {
  const rows = report.coverage.clauses.map((c) => {
    const cells =
      c.checks.length === 0
        ? 'no check'
        : c.checks.map((check) => chipLink(check.id, check.verdict)).join(' ');
    return `<tr${c.checks.length === 0 ? ' class="uncovered"' : ''}><th scope="row">${escapeHtml(c.clause)}</th><td>${escapeHtml(c.title)}</td><td>${cells}</td></tr>`;
  });
  const uncovered =
    report.coverage.uncovered.length === 0
      ? 'every clause'
      : `all but ${report.coverage.uncovered.map(escapeHtml).join(', ')}`;
  return `<section id="coverage"><h2>Coverage of the interface document</h2>
<p>Checks cover ${uncovered}.</p>
<table class="coverage">
<thead><tr><th>Clause</th><th>Title</th><th>Checks</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></section>`;
}

const EVIDENCE_LABELS: Readonly<Record<string, string>> = {
  expected: 'Expected',
  actual: 'Actual',
  note: 'Note',
  skipped: 'Skipped because',
};

/** The same parts as the console and summary.md (an empty one says so), then the reproduction. */
function evidenceItem(item: Evidence): string {
  const shown = [
    ...evidenceParts(item).map(([label, text]) => [EVIDENCE_LABELS[label] ?? label, text] as const),
    ...(item.reproduction === undefined ? [] : [['Reproduction', item.reproduction] as const]),
  ];
  return `<dl class="evidence">
${shown.map(([name, value]) => `<dt>${name}</dt><dd><pre>${escapeHtml(value)}</pre></dd>`).join('\n')}
</dl>`;
}

function finding(check: CheckResult): string {
  const evidence = check.evidence ?? [];
  const more = moreFindingsText(check, evidence.length);
  return `<article class="v-${check.verdict}" id="${anchor(check.id)}">
<h3>${chip(check.verdict)} <code>${escapeHtml(check.id)}</code> ${escapeHtml(check.title)}</h3>
<p class="meta">Clause ${escapeHtml(check.clause)} · level ${escapeHtml(levelText(check))} · evaluated ${count(check.evaluations, 'time')}</p>
<p>${escapeHtml(check.reason)}</p>${check.remedy === undefined ? '' : `\n<p class="remedy"><strong>What to do</strong>: ${escapeHtml(check.remedy)}</p>`}
${evidence.map(evidenceItem).join('\n')}${more === undefined ? '' : `\n<p>${escapeHtml(more)}.</p>`}
</article>`;
}

function findings(report: Certification, verdict: 'FAILED' | 'WARNING', id: string, title: string): string {
  const checks = report.checks.filter((c) => c.verdict === verdict);
  if (checks.length === 0) return '';
  return `<section id="${id}"><h2>${title} (${checks.length})</h2>
${checks.map(finding).join('\n')}
</section>`;
}

/** A cell of the matrix: its verdict's colour and sign; a skip that leaves nothing unjudged greyed. */
function matrixCell(report: Certification, row: CheckResult, cell: ReadingCell): string {
  const expected = skipExpected(report, row, cell);
  const title = `${cell.reading}: ${cell.verdict}${expected ? ', judged in another reading' : ''}`;
  return `<td class="cell v-${cell.verdict}${expected ? ' expected' : ''}" title="${escapeHtml(title)}">${SIGN[cell.verdict]}</td>`;
}

/** What a reading found of a row, under the reading's name; a skip another reading made up for says so. */
function cellEvidence(report: Certification, row: CheckResult, cell: ReadingCell): string {
  const heading = skipExpected(report, row, cell)
    ? `${chip('SKIPPED', cell.reading)} SKIPPED in this reading only`
    : chip(cell.verdict, cell.reading);
  const more = moreFindingsText(cellCheck(row, cell), (cell.evidence ?? []).length);
  return `<h4>${heading}</h4>
${(cell.evidence ?? []).map(evidenceItem).join('\n')}${more === undefined ? '' : `\n<p>${escapeHtml(more)}.</p>`}`;
}

/** One row per check: open with its evidence per reading when a cell needs reading, folded otherwise. */
function matrixRow(report: Certification, row: CheckResult): string {
  const cells = row.readings ?? [];
  const open = rowNeedsReading(report, row);
  const id = row.verdict === 'FAILED' || row.verdict === 'WARNING' ? ` id="${anchor(row.id)}"` : '';
  const shown = cells.filter((c) => c.verdict !== 'PASSED');
  const remedy =
    row.remedy === undefined || !open
      ? ''
      : `\n<p class="remedy"><strong>What to do</strong>: ${escapeHtml(row.remedy)}</p>`;
  return `<tr class="v-${row.verdict}${open ? ' open' : ''}"${id}><td><details${open ? ' open' : ''}><summary>${chip(row.verdict)} <code>${escapeHtml(row.id)}</code> ${escapeHtml(row.title)}</summary>
<p class="meta">Clause ${escapeHtml(row.clause)} · level ${escapeHtml(levelText(row))} · evaluated ${count(row.evaluations, 'time')}</p>
<p>${escapeHtml(row.reason)}</p>${remedy}
${shown.map((cell) => cellEvidence(report, row, cell)).join('\n')}
</details></td>${cells.map((cell) => matrixCell(report, row, cell)).join('')}</tr>`;
}

/** The first thing a matrix report shows: checks as rows, readings as columns, each cell its verdict. */
function matrix(report: Certification): string {
  const readings = report.readings ?? [];
  const heads = readings.map(
    (r) =>
      `<th class="reading v-${r.verdict}" title="${escapeHtml(`${r.name}: ${r.verdict}. ${r.description}`)}"><span>${SIGN[r.verdict]} ${escapeHtml(r.name)}</span></th>`,
  );
  const open = report.checks.filter((row) => rowNeedsReading(report, row));
  const folded = report.checks.filter((row) => !rowNeedsReading(report, row));
  const described = readings.map(
    (r) =>
      `<dt>${chip(r.verdict, r.name)} <small>run ${escapeHtml(r.runId)}</small></dt><dd>${escapeHtml(r.description)}</dd>`,
  );
  return `<section id="matrix"><h2>Checks × readings (${count(readings.length, 'reading')})</h2>
<p>The client ran once against each reading of the document's silences: a cell is a check's verdict in one reading, a row's verdict its worst cell's. The ${count(open.length, 'row')} that need reading come first, open; the others are folded. A grey cell was SKIPPED in that reading only: another reading judges the check.</p>
<table class="matrix">
<thead><tr><th>Check</th>${heads.join('')}</tr></thead>
<tbody>
${[...open, ...folded].map((row) => matrixRow(report, row)).join('\n')}
</tbody>
</table>
<h3>The readings</h3>
<dl class="readings">
${described.join('\n')}
</dl></section>`;
}

function suiteErrors(report: Certification): string {
  if (report.suiteErrors.length === 0) return '';
  const groups = groupErrors(report.suiteErrors).map(
    (g) =>
      `<article class="v-ERROR"><h3>${chip('ERROR')} ${escapeHtml(whereText(g))}</h3><pre>${escapeHtml(g.cause)}</pre>${g.fix === undefined ? '' : `\n<p><strong>What to do</strong>: ${escapeHtml(g.fix)}</p>`}</article>`,
  );
  const each = report.suiteErrors.map(
    (e) =>
      `<dt>${escapeHtml(whereRaised(e) ?? 'outside any test')}</dt><dd><pre>${escapeHtml(e.message)}</pre></dd>`,
  );
  return `<section id="suite-errors"><h2>Suite errors (${report.suiteErrors.length})</h2>
<p>The suite itself went wrong here; these are not findings about the environment.</p>
${groups.join('\n')}
<details><summary>Each error as it was raised</summary>
<dl class="evidence">
${each.join('\n')}
</dl></details>
</section>`;
}

/** One row per reason, with the ids of the checks it left unjudged: a long reason is never repeated. */
function skipped(report: Certification): string {
  const checks = report.checks.filter((c) => c.verdict === 'SKIPPED');
  if (checks.length === 0) return '';
  const titles = new Map(checks.map((c) => [c.id, c.title]));
  const rows = skipGroups(checks).map(
    (g) =>
      `<tr><td>${escapeHtml(g.reason)}</td><td>${g.checks.length}</td><td>${g.checks
        .map(
          (id) =>
            `<code id="${anchor(id)}" title="${escapeHtml(titles.get(id) ?? '')}">${escapeHtml(id)}</code>`,
        )
        .join(', ')}</td></tr>`,
  );
  return `<section id="skipped"><h2>Not tested (${checks.length})</h2>
<p>A skipped check was not judged; it never counts as passed. One row per reason.</p>
<table>
<thead><tr><th>Why</th><th>Checks</th><th>Which</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></section>`;
}

/** A note says what an observation is; it sits under the topic, so no column stands empty. */
function observations(report: Certification): string {
  if (report.observations.length === 0) return '';
  const rows = report.observations.map(
    (o) =>
      `<tr><td>${o.reading === undefined ? '' : `${chip('SKIPPED', o.reading)} `}<code>${escapeHtml(o.topic)}</code>${o.note === undefined ? '' : `<br>${escapeHtml(o.note)}`}</td><td>${escapeHtml(o.clause)}</td><td><pre>${escapeHtml(JSON.stringify(o.value, null, 2))}</pre></td></tr>`,
  );
  return `<section id="observations"><h2>Observations (${report.observations.length})</h2>
<p>What the environment does where the document is silent: recorded, never judged.</p>
<table>
<thead><tr><th>Topic</th><th>Clause</th><th>Value</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></section>`;
}

function passed(report: Certification): string {
  const checks = report.checks.filter((c) => c.verdict === 'PASSED');
  const rows = checks.map(
    (c) =>
      `<tr id="${anchor(c.id)}"><td><code>${escapeHtml(c.id)}</code></td><td>${escapeHtml(c.clause)}</td><td>${c.level}</td><td>${escapeHtml(c.title)}</td><td>${c.evaluations}</td></tr>`,
  );
  return `<section id="passed"><h2>Passed (${checks.length})</h2>
<details><summary>Show the ${checks.length} passed checks</summary>
<table>
<thead><tr><th>Check</th><th>Clause</th><th>Level</th><th>Title</th><th>Evaluations</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></details></section>`;
}

/** The start of every page the suite writes, up to its body: self-contained, under the same CSP. */
export function pageHead(title: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${style}</style>
</head>`;
}

/** A plain report's findings as cards; a matrix report's as its matrix, whose open rows hold them. */
function findingSections(report: Certification): [id: string, label: string, html: string][] {
  if (report.readings !== undefined)
    return [
      ['matrix', 'Matrix', matrix(report)],
      ['suite-errors', 'Suite errors', suiteErrors(report)],
    ];
  return [
    ['failed', 'Failed', findings(report, 'FAILED', 'failed', 'Failed')],
    ['suite-errors', 'Suite errors', suiteErrors(report)],
    ['warnings', 'Warnings', findings(report, 'WARNING', 'warnings', 'Warnings')],
  ];
}

export function renderHtml(report: Certification): string {
  const sections: [id: string, label: string, html: string][] = [
    ...findingSections(report),
    ['skipped', 'Not tested', skipped(report)],
    ['changes', 'Changes', changes(report)],
    ['coverage', 'Coverage', coverage(report)],
    ['observations', 'Observations', observations(report)],
    ['environment', 'Environment', environment(report)],
    ['run', 'Run', runMetadata(report)],
    ['passed', 'Passed', passed(report)],
    ['sign-off', 'Sign-off', signOff(report)],
  ];
  const present = sections.filter(([, , html]) => html !== '');
  return `${pageHead(`${escapeHtml(environmentLabel(report))}: Pix withdrawal certification ${report.verdict}`, STYLE)}
<body>
<h1>Pix withdrawal certification</h1>
${banner(report)}
<nav>${present.map(([id, label]) => `<a href="#${id}">${label}</a>`).join('')}</nav>
${present.map(([, , html]) => html).join('\n')}
<footer>Certification schema version ${report.schemaVersion}; the same results are in certification.json next to this file.</footer>
</body>
</html>
`;
}
