/**
 * Text a request brought may carry terminal escape sequences, line breaks that forge a log line, or
 * bidirectional overrides: none may reach a console raw, none may be lost either. Every line the
 * sandbox and `sandbox trigger` print passes through consoleLine; every JSON answer through jsonWire.
 */

/** C0 and C1 controls, DEL, line and paragraph separators, bidirectional controls, U+FFFE/U+FFFF, lone surrogates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffe\uffff\p{Bidi_Control}\p{Cs}]/gu;
/** The same set, less what JSON.stringify escapes itself. */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\ufffe\uffff\p{Bidi_Control}]/gu;

const hex = (char: string): string => (char.codePointAt(0) ?? 0).toString(16);

function escaped(char: string): string {
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${hex(char).padStart(2, '0')}` : `\\u{${hex(char)}}`;
}

/** One console line: every character that could act on a terminal or break the line, written as an escape. */
export function consoleLine(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/** JSON text of exactly the value, with C1 controls and the like as \uXXXX escapes: no raw byte of them on the wire. */
export function jsonWire(value: unknown): string {
  return JSON.stringify(value).replace(RAW_IN_JSON, (char) => `\\u${hex(char).padStart(4, '0')}`);
}
