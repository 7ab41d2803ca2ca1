/**
 * Suite errors told once per cause, with what to do. When the environment stops answering, every
 * test that sends a request breaks the same way: forty copies of one time-out bury the one line a
 * person needs. Errors are grouped by their first line without Playwright's call log (which differs
 * per request), and a cause the suite recognises gets its fix.
 */
import type { SuiteError } from './model.ts';

export interface ErrorGroup {
  /** The cause in one line, as the first error of the group said it. */
  readonly cause: string;
  /** What to do about it, when the suite knows. */
  readonly fix?: string;
  /** The tests it broke; null stands for an error outside any test. */
  readonly tests: readonly (string | null)[];
}

/** Playwright colours the messages of its workers (they run with FORCE_COLOR=1): styling, not data. */
// eslint-disable-next-line no-control-regex -- matching the escape character is the point here.
const SGR = /\u001b\[[0-9;]*m/g;

export const withoutColours = (text: string): string => text.replace(SGR, '');

/**
 * The part of a message that names the cause: its first line. What follows (Playwright's call log, a
 * stack, the ledger note naming one withdrawal) differs per test and would split one cause in many.
 */
export function causeOf(message: string): string {
  const [first = ''] = withoutColours(message)
    .split('\n')
    .filter((line) => line.trim() !== '');
  return (
    first
      .replace(/\s+/g, ' ')
      .replace(/\s*Call log:.*$/, '')
      .trim() || 'unknown error'
  );
}

const FIXES: readonly (readonly [RegExp, string])[] = [
  [
    /Test timeout of \d+ms exceeded/i,
    'a test ran past its time limit (PIX_WEBHOOK_TIMEOUT_MS + 2 × PIX_REQUEST_TIMEOUT_MS + 10 s): the environment is very slow or a request hung; check the environment, or raise PIX_REQUEST_TIMEOUT_MS.',
  ],
  [
    /\btime(?:d)?[ -]?out\b|Timeout \d+ms exceeded|ETIMEDOUT|UND_ERR_\w*TIMEOUT/i,
    'the environment did not answer within PIX_REQUEST_TIMEOUT_MS: check that it is up, or raise PIX_REQUEST_TIMEOUT_MS if it is only slow. A withdrawal that got no answer is recorded in the ledger with outcome unknown and is never sent again.',
  ],
  [
    /ECONNREFUSED/,
    'nothing accepts connections at the host and port of PIX_BASE_URL any more: check that the environment is up and that PIX_BASE_URL is right.',
  ],
  [
    /ENOTFOUND|EAI_AGAIN/,
    'the host name of PIX_BASE_URL does not resolve: check its spelling and this machine’s DNS.',
  ],
  [
    /ALERT_(CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|CERTIFICATE_EXPIRED|ACCESS_DENIED)|alert (certificate required|handshake failure|bad certificate|unknown ca|certificate unknown|certificate expired|access denied)/i,
    'the server refused the TLS connection over the client certificate: give the one the provider issued you in PIX_TLS_CERT_FILE and PIX_TLS_KEY_FILE (or PIX_TLS_PFX_FILE and PIX_TLS_PASSPHRASE), signed by a CA it trusts.',
  ],
  [
    /certificate|self[- ]signed|ERR_SSL|ERR_TLS|EPROTO|wrong version number/i,
    'the TLS connection failed: an https:// PIX_BASE_URL must reach a TLS port whose certificate this machine trusts (PIX_CA_FILE adds a private CA; certificates are always verified).',
  ],
  [
    /ECONNRESET|socket hang up|other side closed|EPIPE|UND_ERR_SOCKET/i,
    'the environment closed the connection without answering: check that it is up and that no proxy or firewall between here and PIX_BASE_URL drops requests.',
  ],
];

export function fixFor(cause: string): string | undefined {
  return FIXES.find(([pattern]) => pattern.test(cause))?.[1];
}

/** The test an error broke; in a matrix report, named with its reading even outside any test. */
export const whereRaised = (error: SuiteError): string | null =>
  error.reading === undefined ? error.test : `reading ${error.reading}: ${error.test ?? 'outside any test'}`;

/** Errors of the same cause together, in the order their causes first appeared. */
export function groupErrors(errors: readonly SuiteError[]): ErrorGroup[] {
  const groups = new Map<string, (string | null)[]>();
  for (const error of errors) {
    const cause = causeOf(error.message);
    groups.set(cause, [...(groups.get(cause) ?? []), whereRaised(error)]);
  }
  return [...groups].map(([cause, tests]) => {
    const fix = fixFor(cause);
    return { cause, ...(fix === undefined ? {} : { fix }), tests };
  });
}

/** `40 tests`, `1 test and outside any test`, `outside any test`. */
export function whereText(group: ErrorGroup): string {
  const inTests = group.tests.filter((t) => t !== null).length;
  const outside = group.tests.length - inTests;
  const parts = [
    ...(inTests === 0
      ? []
      : [inTests === 1 ? (group.tests.find((t) => t !== null) ?? '') : `${inTests} tests`]),
    ...(outside === 0 ? [] : ['outside any test']),
  ];
  return parts.join(' and ');
}
