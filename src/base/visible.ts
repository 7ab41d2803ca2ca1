/**
 * Text from the environment may carry terminal escape sequences (clear the screen, set the window
 * title, hide the verdict line), bidirectional overrides that reorder what a reader sees, and
 * characters XML 1.0 forbids. None of them may reach a terminal or a text artifact, but none may be
 * lost either: they are shown escaped, `\x1b`, `\u{fffe}`, so the evidence still says what came back.
 * Everything the suite prints or writes passes through here, after redact() masked the secrets
 * (consoleLine in src/secrets/redact.ts does both for a console line).
 */

/**
 * Control characters other than tab and line feed, line and paragraph separators, bidirectional
 * controls, the noncharacters U+FFFE and U+FFFF, and lone surrogates.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufffe\uffff\p{Bidi_Control}\p{Cs}]/gu;

/** The same set, less what JSON.stringify already escapes (C0 controls and lone surrogates). */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\ufffe\uffff\p{Bidi_Control}]/gu;

const hex = (char: string): string => (char.codePointAt(0) ?? 0).toString(16);

function escaped(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${hex(char).padStart(2, '0')}` : `\\u{${hex(char)}}`;
}

/** The text with every character that could act on a terminal or break XML written as an escape. */
export function visible(text: string): string {
  return text.replace(INVISIBLE, escaped);
}

/**
 * The text as one console line: visible, and its line breaks escaped too, so that a value from the
 * environment cannot end the line it is printed on and forge the next (`\nPASSED`).
 */
export function visibleLine(text: string): string {
  return visible(text).replace(/\n/g, escaped);
}

/**
 * Every string of a JSON-like value made visible, for the renderers that lay text out; `escape` is
 * visibleLine where each string is to stay on its line.
 */
export function visibleJson<T>(value: T, escape: (text: string) => string = visible): T {
  return visibleValue(value, escape) as T;
}

function visibleValue(value: unknown, escape: (text: string) => string): unknown {
  if (typeof value === 'string') return escape(value);
  if (Array.isArray(value)) return value.map((item) => visibleValue(item, escape));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [escape(key), visibleValue(member, escape)]),
  );
}

/**
 * JSON text that holds exactly the value, with every such character as a `\uXXXX` escape: a reader
 * of the data loses nothing, and `cat certification.json` acts on no terminal.
 */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (char) => `\\u${hex(char).padStart(4, '0')}`)}\n`;
}
