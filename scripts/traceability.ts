/**
 * Traceability between interface.md and the checks: every sentence of the document (each rule, each
 * table row, each header requirement) is quoted in docs/traceability.md and mapped to the checks
 * that enforce it, or to why none can. selftest/docs.test.ts fails when a sentence is missing, has
 * no mapping, or names a check the catalogue does not have.
 */
import { join } from 'node:path';
import { ROOT } from '../src/base/paths.ts';

/** The document, committed byte for byte beside the table that traces it. */
export const INTERFACE_PATH = join(ROOT, 'docs', 'interface.md');
export const TRACEABILITY_PATH = join(ROOT, 'docs', 'traceability.md');

export interface Sentence {
  /** `§2.1`; `§5.4` for item 4 of a numbered list in §5; `preamble` before the first section. */
  readonly section: string;
  /** The sentence as written; a table row as its cells joined by ` | `. */
  readonly text: string;
}

/** The cells of a Markdown table row, with `\|` and `\<` (escaped so as not to end a cell or open a tag) unescaped. */
function cellsOf(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\([|<])/g, '$1'));
}

const isTableSeparator = (line: string): boolean => /^\|(\s*:?-+:?\s*\|)+$/.test(line.trim());

/** Splits prose at the end of each sentence; the document has no abbreviations with a full stop. */
const sentencesOf = (prose: string): string[] =>
  prose
    .split(/(?<=\.)\s+/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.endsWith(':'));

export function documentSentences(markdown: string): Sentence[] {
  const sentences: Sentence[] = [];
  let section = 'preamble';
  let tableHeader = false;
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,3}\s+(\d+(?:\.\d+)?)\.?\s/.exec(line);
    if (heading !== null) section = `§${heading[1] ?? ''}`;
    if (line.startsWith('#') || line.trim() === '') {
      tableHeader = false;
      continue;
    }
    if (line.trim().startsWith('|')) {
      // The first row of a table names its columns; the separator follows it.
      const isHeader = !tableHeader;
      tableHeader = true;
      if (!isHeader && !isTableSeparator(line)) sentences.push({ section, text: cellsOf(line).join(' | ') });
      continue;
    }
    tableHeader = false;
    const item = /^\s*(\d+)\.\s+/.exec(line);
    const where = item === null ? section : `${section}.${item[1] ?? ''}`;
    const prose = line.replace(/^\s*(?:-|\d+\.)\s+/, '');
    for (const text of sentencesOf(prose)) sentences.push({ section: where, text });
  }
  return sentences;
}

export interface TraceRow {
  readonly section: string;
  readonly sentence: string;
  readonly tracedTo: string;
}

/** The rows of the traceability table: `| § | sentence | traced to |`. */
export function traceRows(markdown: string): TraceRow[] {
  return markdown
    .split('\n')
    .filter((line) => line.trim().startsWith('|') && !isTableSeparator(line))
    .map(cellsOf)
    .filter((cells) => cells[0] !== '§')
    .map(([section = '', sentence = '', tracedTo = '']) => ({ section, sentence, tracedTo }));
}

const NOT_TESTABLE = 'not testable from outside, because ';
const OBSERVATION_ONLY = 'observation only: the document says not shown';

const CHECK_ID = /^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+$/;

/** The check ids a mapping names: the comma-separated ids before an optional `; note`. */
function checkIdsOf(tracedTo: string): string[] | undefined {
  const [ids = ''] = tracedTo.split(';', 1);
  const parts = ids.split(',').map((id) => id.trim());
  return parts.every((id) => CHECK_ID.test(id)) ? parts : undefined;
}

/** What is wrong with the table against the document and the catalogue; empty when nothing is. */
export function traceProblems(
  document: readonly Sentence[],
  rows: readonly TraceRow[],
  checkIds: ReadonlySet<string>,
): string[] {
  const quoted = new Map(rows.map((row) => [row.sentence, row]));
  const inDocument = new Set(document.map((s) => s.text));
  const mapped = new Set<string>();
  const problems = [
    ...document.filter((s) => !quoted.has(s.text)).map((s) => `${s.section}: not in the table: "${s.text}"`),
    ...rows
      .filter((row) => !inDocument.has(row.sentence))
      .map((row) => `not in the document: "${row.sentence}"`),
    ...rows.flatMap((row): string[] => {
      const { tracedTo, sentence } = row;
      if (tracedTo.startsWith(NOT_TESTABLE)) {
        return tracedTo.length - NOT_TESTABLE.length >= 10
          ? []
          : [`"${sentence}": say why it is not testable`];
      }
      if (tracedTo.startsWith(OBSERVATION_ONLY)) return [];
      const ids = checkIdsOf(tracedTo);
      if (ids === undefined) {
        return [
          `"${sentence}": traced to neither checks nor "${NOT_TESTABLE}…" nor "${OBSERVATION_ONLY}": '${tracedTo}'`,
        ];
      }
      for (const id of ids) mapped.add(id);
      return ids
        .filter((id) => !checkIds.has(id))
        .map((id) => `"${sentence}": no check ${id} in the catalogue`);
    }),
  ];
  const untraced = [...checkIds].filter((id) => !mapped.has(id));
  return [...problems, ...untraced.map((id) => `${id}: no sentence of the document is traced to it`)];
}
