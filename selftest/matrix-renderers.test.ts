/**
 * A matrix report (pix-certify client --readings) as each format shows it: the HTML opens on the matrix,
 * readings as columns, only the rows that need reading open; summary.md has the matrix table and names
 * the reading of each finding; junit.xml has a case per check and reading; the console names the reading
 * of each finding and each column's verdict. A report without readings keeps its own layout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderArtifacts } from '../reporters/certification/artifacts.ts';
import { correctRun } from './support/client-journal.ts';
import type { Certification } from '../src/report/model.ts';
import {
  completeRun,
  certified,
  fieldCase,
  matrixOf,
  reading,
  SOME_ID,
  withSome,
} from './support/reading-matrix.ts';

const PATHS = { html: 'h', json: 'j', markdown: 'm', junit: 'u' };
const render = (report: Certification) => renderArtifacts(report, PATHS, { width: 100, colour: false });

/** simulator PASSED but for the 429 only rate-limited exercises; refuses-401 FAILED on its field names. */
const report = matrixOf(
  [
    reading('simulator', completeRun({ without429: true })),
    reading('refuses-401', completeRun({ extra: [fieldCase(9_000)] })),
  ],
  withSome,
);
const artifacts = render(report);

describe('certification.html of a matrix report', () => {
  const { html } = artifacts;

  it('shows the matrix first, right after the banner: a column per reading, a row per check', () => {
    const banner = html.indexOf('</header>');
    const matrix = html.indexOf('<section id="matrix">');
    assert.ok(banner > 0 && matrix > banner);
    const sections = [...html.matchAll(/<section id="([a-z-]+)"/g)].map((m) => m[1]);
    assert.equal(sections[0], 'matrix');
    assert.doesNotMatch(html, /class="failed-list"/, 'the matrix, not the banner, lists the findings');
    const heads = [...html.matchAll(/<th class="reading v-(\w+)"[^>]*><span>\S+ ([\w-]+)<\/span>/g)].map(
      (m) => [m[2], m[1]],
    );
    assert.deepEqual(heads, [
      ['simulator', 'PASSED'],
      ['refuses-401', 'FAILED'],
    ]);
    const rows = html.slice(matrix, html.indexOf('</table>', matrix)).match(/<tr class="v-/g) ?? [];
    assert.equal(rows.length, report.checks.length);
  });

  it('opens only the rows that need reading, each with its evidence under its reading; the others are folded', () => {
    const open = [...html.matchAll(/<details open><summary>.*?<code>([\w-]+)<\/code>/g)].map((m) => m[1]);
    assert.deepEqual(open, ['CLIENT-BODY-FIELD-NAMES']);
    const row = html.slice(html.indexOf('id="check-CLIENT-BODY-FIELD-NAMES"'));
    assert.match(row.slice(0, row.indexOf('</tr>')), /refuses-401<\/span><\/h4>\n<dl class="evidence">/);
    const matrix = html.slice(html.indexOf('<section id="matrix">'), html.indexOf('</section>'));
    const folded = matrix.match(/<details><summary>/g) ?? [];
    assert.equal(folded.length, report.checks.length - 1);
  });

  it('greys a cell SKIPPED because only another reading exercises the check, and says so when opened', () => {
    const row = html.slice(html.indexOf(`<code>${SOME_ID}</code>`));
    const cells = row.slice(0, row.indexOf('</tr>'));
    assert.match(
      cells,
      /<td class="cell v-SKIPPED expected" title="simulator: SKIPPED, judged in another reading">/,
    );
    assert.match(cells, /SKIPPED in this reading only/);
  });

  it('keeps a plain report as it was: no matrix, the failed list in the banner', () => {
    const plain = render(certified(completeRun({ extra: [fieldCase(9_000)] }))).html;
    assert.doesNotMatch(plain, /id="matrix"|class="matrix"/);
    assert.match(plain, /class="failed-list"/);
  });
});

describe('summary.md, junit.xml and the console of a matrix report', () => {
  it('summary.md: the matrix table, a row per check, and each finding with its reading', () => {
    const { markdown } = artifacts;
    assert.match(markdown, /\| Check \| `simulator` \| `refuses-401` \|\n\|---\|:---:\|:---:\|/);
    assert.match(markdown, /\| `CLIENT-BODY-FIELD-NAMES` \| ✓ PASSED \| ✗ FAILED \|/);
    assert.match(markdown, new RegExp(`\\| \`${SOME_ID}\` \\| \\(–\\) \\| ✓ PASSED \\|`));
    assert.match(markdown, /- \*\*FAILED\*\* `CLIENT-BODY-FIELD-NAMES` in reading `refuses-401` /);
  });

  it('junit.xml: a case per check and reading, the reading in its class name and name', () => {
    const { junit } = artifacts;
    const cases = junit.match(/<testcase /g) ?? [];
    assert.equal(cases.length, report.checks.length * 2);
    assert.match(junit, /tests="\d+" failures="1" errors="0" skipped="1"/);
    assert.match(
      junit,
      /<testcase classname="refuses-401 [^"]*" name="CLIENT-BODY-FIELD-NAMES [^"]* \(reading refuses-401\)"[^>]*>\n\s*<failure /,
    );
    assert.match(
      junit,
      new RegExp(
        `name="${SOME_ID} [^"]*\\(reading simulator\\)"[^>]*>\\n\\s*<skipped message="SKIPPED in this reading only, judged in another: `,
      ),
    );
  });

  it('the console: each finding with its reading, and each column with its verdict', () => {
    const { console: text } = artifacts;
    assert.match(text, /FAILED {3}CLIENT-BODY-FIELD-NAMES · reading refuses-401 · §/);
    assert.match(text, /Readings: simulator PASSED, refuses-401 FAILED/);
  });

  it('junit.xml keeps each set of readings’ cause of INCOMPLETE; the HTML names each reading’s namespace', () => {
    const incomplete = render(
      matrixOf([reading('simulator', completeRun({ without429: true })), reading('gzip', correctRun())]),
    );
    const properties = [
      ...incomplete.junit.matchAll(/<property name="(incomplete\.[^"]+)" value="In (reading[^:]+):/g),
    ];
    assert.deepEqual(
      properties.map((m) => [m[1], m[2]]),
      [
        ['incomplete.environment.simulator', 'reading simulator'],
        ['incomplete.environment.gzip', 'reading gzip'],
      ],
    );
    assert.match(
      incomplete.html,
      /<th scope="row">Run id<\/th><td><code>simulator: ns-test, gzip: ns-test<\/code>/,
    );
  });

  it('a suite error of a reading is told with its reading in every format', () => {
    const broken = render(
      matrixOf([
        reading('simulator', completeRun()),
        reading('gzip', completeRun(), [{ test: 'journal', message: 'the journal could not be read' }]),
      ]),
    );
    const formats = {
      html: broken.html,
      markdown: broken.markdown,
      junit: broken.junit,
      console: broken.console,
    };
    for (const [format, text] of Object.entries(formats)) assert.match(text, /reading gzip: journal/, format);
  });
});
