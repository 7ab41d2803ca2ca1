/**
 * One HTTP exchange with the environment as data: what checks judge and what a person needs to
 * reproduce it. Nothing here sends anything (that is http.ts), so checks and reporters can use it.
 * Everything it renders is redacted before it is cut.
 */
import type { OperationId } from '../spec/spec.ts';
import { excerpt, redact, redactHeaders } from '../secrets/redact.ts';
import { boundedJson } from './shape.ts';
import { isRegisteredSecret } from '../secrets/registry.ts';
import { readPath, type JsonValue } from '../base/json.ts';
export interface SentRequest {
  readonly method: 'POST';
  readonly url: string;
  /**
   * Given to send(): the headers of the case. Returned in the exchange: every header that went on the
   * wire, in order, Host, Content-Length and Connection included (http.ts onTheWire).
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body as sent; undefined when none was sent. */
  readonly body: string | undefined;
}

export interface ReceivedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string;
  readonly bodyText: string;
  /** The parsed body, or undefined when the body is empty or not JSON. */
  readonly json: JsonValue | undefined;
}

export interface Exchange {
  readonly operation: OperationId;
  readonly request: SentRequest;
  readonly response: ReceivedResponse;
  readonly durationMs: number;
  /** When the request left, on the sending process's performance.now() clock: what orders a race's copies. */
  readonly sentAt?: number;
  /**
   * The earlier attempts of this same request the environment answered 429 (not processed), each
   * waited out as Retry-After asked before the request was sent again; absent when there were none.
   */
  readonly rateLimited?: readonly { readonly status: number; readonly waitedMs: number }[];
  /**
   * A withdrawal sent with every configured credential and a token just issued, refused with 401 or
   * 403: refused for authentication, so its body was never judged by the provider.
   */
  readonly refusedWithValidCredentials?: true;
}

/** The environment said it did not process the request (429): it is no answer to judge. */
export const isRateLimited = (exchange: Exchange): boolean => exchange.response.status === 429;

/** The parsed JSON value, or undefined when the text is empty or not JSON. */
export function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A header as the shell hands it to curl. HTTP sends a header value's characters up to U+00FF as one
 * byte each (a near miss's no-break space is 0xA0), where a pasted line would send UTF-8 (0xC2 0xA0):
 * such a character and any control are written as that byte in $'…' quoting (bash, zsh).
 */
function headerQuote(header: string): string {
  let escaped = '';
  let asIs = true;
  for (let at = 0; at < header.length; at++) {
    const code = header.charCodeAt(at);
    const char = header.charAt(at);
    if (code < 0x20 || (code >= 0x7f && code <= 0xff)) {
      asIs = false;
      escaped += `\\x${code.toString(16).padStart(2, '0')}`;
    } else escaped += char === "'" || char === '\\' ? `\\${char}` : char;
  }
  return asIs ? shellQuote(header) : `$'${escaped}'`;
}

const REPRODUCED_BODY_CHARS = 2_000;

/**
 * Headers curl adds of its own when the request does not set them; an empty value (`-H 'Accept:'`)
 * stops it, so that the line sends what the suite sent and nothing more.
 */
function curlDefaults(body: string | undefined): string[] {
  if (body === undefined) return ['User-Agent', 'Accept'];
  // With --data-raw curl adds a form content type, and Expect: 100-continue above 1 KB.
  return ['User-Agent', 'Accept', 'Content-Type', ...(Buffer.byteLength(body) > 1_024 ? ['Expect'] : [])];
}

/**
 * The shell variable a reproduction puts in place of each credential header: the reader's own
 * value when the suite sent the configured one (or a token it was issued), else one they choose.
 */
const PLACEHOLDERS: Readonly<
  Record<string, { readonly yours: string; readonly other: string; readonly what: string }>
> = {
  client_secret: { yours: 'PIX_CLIENT_SECRET', other: 'WRONG_CLIENT_SECRET', what: 'client_secret' },
  cert_client: { yours: 'PIX_CERT_CLIENT', other: 'WRONG_CERT_CLIENT', what: 'cert_client' },
  authorization: { yours: 'ACCESS_TOKEN', other: 'WRONG_TOKEN', what: 'access token' },
  'proxy-authorization': { yours: 'PROXY_CREDENTIAL', other: 'PROXY_CREDENTIAL', what: 'proxy credential' },
  cookie: { yours: 'COOKIE', other: 'COOKIE', what: 'cookie' },
};

interface Placed {
  /** The header as the curl line sends it, in double quotes so that the shell expands the variable. */
  readonly header: string;
  /** What the reader sets the variable to. */
  readonly note: string;
}

function placeholderFor(name: string, value: string): Placed | undefined {
  const placeholder = PLACEHOLDERS[name.toLowerCase()];
  if (placeholder === undefined || value === '') return undefined;
  // An authorization keeps its scheme (Bearer), which is no secret and part of what was judged.
  const scheme = /^authorization$/i.test(name) ? /^([\w.-]+)\s+(.+)$/.exec(value) : null;
  const credential = scheme?.[2] ?? value;
  const yours = isRegisteredSecret(credential);
  const variable = yours ? placeholder.yours : placeholder.other;
  const note = yours
    ? placeholder.yours === 'ACCESS_TOKEN'
      ? `$ACCESS_TOKEN: an access token from POST /auth/token`
      : `$${variable}: your ${placeholder.what}`
    : `$${variable}: a ${placeholder.what} that is not yours (this one had ${credential.length} characters)`;
  return { header: `"${name}: ${scheme === null ? '' : `${scheme[1] ?? ''} `}$${variable}"`, note };
}

/**
 * A reproduction: a `curl` line that sends exactly the recorded request, every credential a shell
 * variable (`$PIX_CLIENT_SECRET`) the reader sets, never a value, and every other secret masked. A
 * withdrawal says first that it moves money: whoever runs it sends a real payout.
 */
export function curlLine(request: SentRequest, operation?: OperationId): string {
  const sent = new Set(Object.keys(request.headers).map((name) => name.toLowerCase()));
  const parts = ['curl', '-i', '--http1.1', '-X', request.method, shellQuote(redact(request.url))];
  const notes: string[] = [];
  const masked = Object.entries(redactHeaders(request.headers));
  Object.entries(request.headers).forEach(([name, value], index) => {
    const placed = placeholderFor(name, value);
    if (placed !== undefined && !notes.includes(placed.note)) notes.push(placed.note);
    parts.push('-H', placed?.header ?? headerQuote((masked[index] ?? [name, '***']).join(': ')));
  });
  for (const name of curlDefaults(request.body))
    if (!sent.has(name.toLowerCase())) parts.push('-H', shellQuote(`${name}:`));
  if (request.body !== undefined)
    parts.push('--data-raw', shellQuote(excerpt(request.body, REPRODUCED_BODY_CHARS)));
  return [
    ...(operation === 'createWithdraw'
      ? ['# sends a real withdrawal: moves money if the environment accepts it']
      : []),
    ...(notes.length === 0 ? [] : [`# set ${notes.join('; ')}`]),
    parts.join(' '),
  ].join('\n');
}

/** The token a token response carries at `tokenField` (PIX_TOKEN_FIELD), if it is a string. */
export function tokenAt(exchange: Exchange, tokenField: string): string | undefined {
  const token = readPath(exchange.response.json, tokenField);
  return typeof token === 'string' ? token : undefined;
}

const DESCRIBED_BODY_CHARS = 300;

/**
 * A short, redacted description of a response for evidence. A JSON body is described from its
 * parsed value, bounded and masked before it is cut, so that no escape in the text hides a secret.
 */
export function describeResponse(response: ReceivedResponse): string {
  const body = response.json === undefined ? response.bodyText : JSON.stringify(boundedJson(response.json));
  return excerpt(
    `${response.status} ${response.contentType || '(no content-type)'} ${body}`.trim(),
    DESCRIBED_BODY_CHARS,
  );
}
