/**
 * Error-bodies family (§7 "not shown"): whatever shape an error body has, it shows nothing of the
 * server behind it. Stack frames, file-system paths, SQL error text and framework banners tell an
 * attacker the stack, the layout and the queries (OWASP API Security Top 10: security misconfiguration).
 */
import type { JsonValue } from '../base/json.ts';
import { isError } from '../base/status.ts';
import type { Exchange } from '../evidence/exchange.ts';
import { excerpt, redact } from '../secrets/redact.ts';
import { defineCheck, violation } from './check.ts';
import { familyFile, type Family } from './family.ts';

type Sign = 'a stack frame' | 'a server file path' | 'SQL error text' | 'a framework banner';

/**
 * What gives a server's internals away, by kind; each pattern needs more than a word or a URL to match,
 * none starts with an open run of characters, and none reads an unbounded run from a start that can recur
 * inside it: either would make a long body's scan quadratic (`java.java.java…`).
 */
const SIGNS: readonly { readonly sign: Sign; readonly pattern: RegExp }[] = [
  // V8: at createWithdraw (/srv/pix/handler.js:212:11), at /srv/x.mjs:1:2, at f (node:internal/x:95:5)
  {
    sign: 'a stack frame',
    pattern: /\bat (?:\S+ ){0,3}\(?(?:[^\s()]*\.[cm]?[jt]sx?|node:[\w/]+):\d+:\d+\)?/,
  },
  { sign: 'a stack frame', pattern: /\bFile "[^"\n]+", line \d+/ },
  {
    sign: 'a stack frame',
    pattern:
      /\bat (?:[\w$]+\.)+[\w$<>]+\((?:[\w$-]+\.(?:java|kt|scala|groovy):\d+|Native Method|Unknown Source)\)/,
  },
  { sign: 'a stack frame', pattern: /\bat [\w.`<>]+\([^)\n]{0,200}\) in [^\n]{1,300}:line \d+/ },
  { sign: 'a stack frame', pattern: /\.rb:\d+:in [`']/ },
  { sign: 'a stack frame', pattern: /\bgoroutine \d+ \[[\w ]+\]:|\.go:\d+ \+0x[\da-f]+/ },
  { sign: 'a stack frame', pattern: /\.php\(\d+\): |\.php on line \d+/ },
  // Rust: thread 'main' panicked at src/pay.rs:88:14
  { sign: 'a stack frame', pattern: /\bpanicked at [^\n]{0,200}\.rs:\d+:\d+/ },
  // Not inside a URL or a longer path: a path of the server's own disk, as a process sees it.
  {
    sign: 'a server file path',
    pattern:
      /(?<![\w.~%:/-])\/(?:srv|home|var\/www|var\/lib|usr\/src|usr\/local|opt|root|Users|app\/(?:src|dist|node_modules))\/[\w.@~-]+/,
  },
  { sign: 'a server file path', pattern: /(?<!\w)[A-Za-z]:\\{1,2}(?:[\w .$~-]+\\{1,2})+[\w.$~-]*/ },
  { sign: 'SQL error text', pattern: /syntax error at or near|You have an error in your SQL syntax/i },
  { sign: 'SQL error text', pattern: /\bORA-\d{5}\b|\bSQLSTATE\b|\bSQLITE_[A-Z]+\b|\[Microsoft\]\[ODBC/i },
  {
    sign: 'SQL error text',
    pattern:
      /duplicate key value violates unique constraint|\bDuplicate entry '[^'\n]*' for key\b|\bE11000 duplicate key error\b|Unclosed quotation mark after the character string|\brelation "[^"\n]+" does not exist|Cannot insert duplicate key (?:row )?in object '|\bno such table: \w/i,
  },
  {
    sign: 'SQL error text',
    pattern:
      /\b(?:Sequelize\w*|QueryFailed|PrismaClient\w*|Mongo(?:Server)?)Error\b|\bpsycopg2?\.\w+|\bPG::[A-Z]\w+|\bsqlalchemy\.exc\.\w+|\bActiveRecord::\w+|Illuminate\\{1,2}Database\\{1,2}QueryException/,
  },
  {
    sign: 'a framework banner',
    pattern:
      /Whitelabel Error Page|Traceback \(most recent call last\)|Server Error in '[^'\n]*' Application|\bWerkzeug Debugger\b|Whoops, looks like something went wrong|Apache Tomcat\/\d|<b>(?:Fatal|Parse) error<\/b>:|you have <code>DEBUG = True<\/code>|An unhandled exception occurred while processing the request|\bActionController::\w+|Symfony\\{1,2}Component\\{1,2}/,
  },
  // A web server's own error page with its version (nginx's server_tokens, Apache's ServerSignature).
  {
    sign: 'a framework banner',
    pattern:
      /<(?:center|address)>(?:nginx|openresty|Apache|Microsoft-IIS)\/\d[^<\n]{0,80}<\/(?:center|address)>/,
  },
  // Express's default error page: <pre>Error: …<br> &nbsp; &nbsp;at …
  { sign: 'a framework banner', pattern: /<pre>\s*\w*Error: [^<]*<br>/ },
  {
    sign: 'a framework banner',
    pattern:
      /\b(?:java|javax|jakarta|org\.springframework|org\.hibernate|com\.fasterxml|System)\.[\w.]{0,200}(?:Exception|Error)\b/,
  },
];

/** Characters of the body shown before the first sign, and in all. */
const LEAD_CHARS = 40;
const EXCERPT_CHARS = 240;
/** Bounds the walk of a deep or wide JSON body: an error body is short, a hostile one is not. */
const MAX_STRINGS = 1_000;

/** The string values of a JSON body, breadth-first and bounded: where escaped slashes and line breaks read plainly. */
function stringsOf(json: JsonValue): string[] {
  const strings: string[] = [];
  const queue: JsonValue[] = [json];
  for (let at = 0; at < queue.length && strings.length < MAX_STRINGS; at++) {
    const value = queue[at];
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) queue.push(...value);
    else if (value !== null && typeof value === 'object') queue.push(...Object.values(value));
  }
  return strings;
}

export interface LeakFound {
  /** The kinds of internals the text shows, in the order of SIGNS. */
  readonly signs: readonly Sign[];
  /** Where the first shows, masked and then cut, on one line. */
  readonly excerpt: string;
}

/** What of a server's internals a body shows, or undefined; a JSON body is read as its string values. */
export function leakIn(bodyText: string, json: JsonValue | undefined): LeakFound | undefined {
  const text = json === undefined ? bodyText : stringsOf(json).join('\n');
  const found = SIGNS.filter(({ pattern }) => pattern.test(text));
  if (found.length === 0) return undefined;
  // Masked whole before it is cut, so that no excerpt starts or ends inside a secret; only a body that
  // leaks is masked, as masking a long body costs more than scanning it.
  const masked = redact(text);
  const first = Math.min(...found.map(({ pattern }) => pattern.exec(masked)?.index ?? masked.length));
  const from = Math.max(0, Math.min(first, masked.length) - LEAD_CHARS);
  const shown = excerpt(masked.slice(from), EXCERPT_CHARS, () => '…').replace(/\s+/g, ' ');
  return { signs: [...new Set(found.map((f) => f.sign))], excerpt: `${from > 0 ? '…' : ''}${shown}` };
}

export const errorShowsNoInternals = defineCheck<{ readonly exchange: Exchange }>(
  {
    id: 'RESPONSE-ERROR-NO-INTERNALS',
    title:
      "Error bodies show none of the server's internals: no stack frame, file path, SQL error or framework banner",
    clause: '§7 (not shown)',
    level: 'should',
    reason:
      "The shape of error bodies is not shown (§7), but a stack trace, a server path, a database's error or a framework's error page tells an attacker how the service is built (OWASP API Security Top 10: security misconfiguration).",
    remedy:
      'Answer errors with a short JSON body of your own (a code and a message); log the exception, its stack and the failed query on the server, never in the response, and turn off framework debug pages in every environment integrators reach.',
    onePerRun: true,
  },
  ({ exchange }) => {
    const leak = leakIn(exchange.response.bodyText, exchange.response.json);
    if (leak === undefined) return [];
    const { request, response } = exchange;
    return [
      violation(
        'should',
        "an error body that shows none of the server's internals",
        `${request.method} ${new URL(request.url).pathname} answered ${response.status} with ${leak.signs.join(' and ')}: ${leak.excerpt}`,
      ),
    ];
  },
  ({ exchange }) =>
    isError(exchange.response.status) ? undefined : `a ${exchange.response.status} answer, which is no error`,
);

export const errorBodiesFamily: Family = {
  name: 'error bodies',
  file: familyFile(import.meta.url),
  checks: () => [errorShowsNoInternals],
  withdrawals: () => 0,
};
