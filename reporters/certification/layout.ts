/**
 * How console text is laid out: wrapped to the terminal's width (100 columns when the output is not
 * a terminal, as in a CI log) at spaces, never cut, and coloured only where colour is wanted.
 */
import type { Verdict } from '../../src/checks/vocabulary.ts';
import type { OverallVerdict } from '../../src/report/model.ts';

/** The width of a log that is not a terminal: wide enough for a finding, narrow enough to read. */
export const DEFAULT_WIDTH = 100;
/** Below this a terminal is too narrow to indent; lines still wrap, at this width. */
const MIN_WIDTH = 40;

export interface Layout {
  readonly width: number;
  readonly colour: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Colour on a terminal unless NO_COLOR is set (no-color.org) or TERM is dumb; FORCE_COLOR wins over
 * both, as in Node and Playwright: `0` or `false` turns colour off, anything else on, terminal or not.
 */
export function wantsColour(env: Env, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY && env.TERM !== 'dumb';
}

export function layoutFor(stream: { readonly isTTY?: boolean; readonly columns?: number }, env: Env): Layout {
  const isTTY = stream.isTTY === true;
  const columns =
    isTTY && stream.columns !== undefined && stream.columns > 0 ? stream.columns : DEFAULT_WIDTH;
  return { width: Math.max(MIN_WIDTH, columns), colour: wantsColour(env, isTTY) };
}

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** What a reader sees as characters: an accented letter or an emoji is one, whatever its code points. */
const graphemes = (text: string): string[] => Array.from(GRAPHEMES.segment(text), (s) => s.segment);

/**
 * A word ending in ':' (`webhook-id:`) goes on the line of the word after it, so that no line ends
 * in a label whose value is on the next one.
 */
function keepLabelsWithValues(words: readonly string[]): string[] {
  const kept: string[] = [];
  for (const word of words) {
    const last = kept.at(-1);
    if (last?.endsWith(':') === true) kept[kept.length - 1] = `${last} ${word}`;
    else kept.push(word);
  }
  return kept;
}

/**
 * Wraps text at spaces so that no line is longer than `width`; every line after the first starts
 * with `indent` (a hanging indent under a label), and so does the first when `first` is not given.
 * A word longer than a line (a URL, a token) continues on the next: its characters are all kept.
 * Line breaks in the text are kept; runs of spaces inside a line are collapsed.
 */
export function wrap(text: string, width: number, indent = '', first = indent): string[] {
  const lines: string[] = [];
  const indentLength = graphemes(indent).length;
  let line = first;
  // The line's length in graphemes, counted as it grows: segmenting the whole line again for every
  // word made wrapping a long report quadratic (about 0.1 s of every run's end, before the reports).
  let length = graphemes(first).length;
  let empty = true;
  const newLine = (): void => {
    lines.push(line.trimEnd());
    line = indent;
    length = indentLength;
    empty = true;
  };
  const room = (): number => Math.max(1, width - length - (empty ? 0 : 1));
  text.split('\n').forEach((paragraph, index) => {
    if (index > 0) newLine();
    for (const word of keepLabelsWithValues(paragraph.split(/[ \t]+/).filter((w) => w !== ''))) {
      let rest = graphemes(word);
      if (!empty && rest.length > room()) newLine();
      while (rest.length > 0) {
        const part = rest.slice(0, room());
        line = empty ? `${line}${part.join('')}` : `${line} ${part.join('')}`;
        length += empty ? part.length : part.length + 1;
        empty = false;
        rest = rest.slice(part.length);
        if (rest.length > 0) newLine();
      }
    }
  });
  lines.push(line.trimEnd());
  return lines;
}

/** A label in a column (`expected  `) followed by text wrapped under it. */
export function labelled(label: string, text: string, width: number, indent: string): string[] {
  const head = `${indent}${label}`;
  return wrap(text, width, ' '.repeat(graphemes(head).length), head);
}

const SGR: Readonly<Record<OverallVerdict | Verdict, string>> = {
  FAILED: '31;1',
  ERROR: '35;1',
  WARNING: '33',
  INCOMPLETE: '36;1',
  PASSED: '32',
  SKIPPED: '2',
};

/** A verdict word, padded to `pad` columns, in its colour when the layout has colour. */
export function paint(layout: Layout, verdict: OverallVerdict | Verdict, pad = 0): string {
  const word = verdict.padEnd(pad);
  if (!layout.colour) return word;
  const trailing = word.slice(verdict.length);
  return `\u001b[${SGR[verdict]}m${verdict}\u001b[0m${trailing}`;
}

/** Background and text colours of a verdict's cell in a table (the history's), readable on either. */
const CELL_SGR: Readonly<Record<OverallVerdict | Verdict, string>> = {
  FAILED: '97;41',
  ERROR: '97;45',
  WARNING: '30;43',
  INCOMPLETE: '97;46',
  PASSED: '30;42',
  SKIPPED: '97;100',
};

/** Text on its verdict's colour, as a table cell, when the layout has colour; the text alone otherwise. */
export function tint(layout: Layout, verdict: OverallVerdict | Verdict, text: string): string {
  return layout.colour ? `\u001b[${CELL_SGR[verdict]}m${text}\u001b[0m` : text;
}
