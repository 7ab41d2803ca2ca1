/**
 * The last line of defence before anything is written. Secrets are registered with `redact` in the
 * processes that knew them (workers), not in the reporter's, so a value that slipped through
 * there is caught here by its shape: the value of a credential header in a curl line or a JSON
 * object, a long Bearer token anywhere, and user:password in a URL.
 */
import { mask, redact, SECRET_HEADERS } from '../../tests/_support/redact.ts';

/** Credential headers, plus the token field of a token response echoed as JSON. */
const SECRET_NAMES: ReadonlySet<string> = new Set([...SECRET_HEADERS, 'access_token']);
const NAMES = [...SECRET_NAMES].map((name) => name.replace(/[-_]/g, '[-_]')).join('|');

/** `-H 'name: value'`, where a quote inside the value is written `'\''` (exchange.ts shellQuote). */
const CURL_SINGLE_QUOTED = new RegExp(`(-H\\s+')(${NAMES})(\\s*:\\s*)((?:'\\\\''|[^'])*)`, 'gi');
const CURL_DOUBLE_QUOTED = new RegExp(`(-H\\s+")(${NAMES})(\\s*:\\s*)((?:\\\\.|[^"\\\\])*)`, 'gi');
const JSON_MEMBER = new RegExp(`(")(${NAMES})("\\s*:\\s*")((?:\\\\.|[^"\\\\])*)`, 'gi');
/** Shorter words after "Bearer" are prose ("the Bearer token"), not credentials. */
const BEARER_TOKEN = /\bBearer(\s+)(?!\*\*\*)([A-Za-z0-9\-._~+/]{16,}=*)/g;
const URL_USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:'"]+:[^\s/@'"]+@/gi;

const isMasked = (value: string): boolean => value.startsWith('***');

/**
 * What shapeOf (tests/_support/shape.ts) writes in place of a value: `{"access_token":"string"}`
 * is a response's shape, and masking it would hide its type from the report and from a baseline.
 */
const TYPE_NAMES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'null', 'object', 'array']);

/** Masks a credential header's value, keeping an authorization scheme readable. */
function maskHeaderValue(name: string, value: string): string {
  if (value === '' || isMasked(value)) return value;
  const scheme = /^(\S+)\s+(.+)$/.exec(value);
  if (name.toLowerCase().endsWith('authorization') && scheme !== null) {
    const [, word = '', credential = ''] = scheme;
    return `${word} ${isMasked(credential) ? credential : mask(credential, 'token')}`;
  }
  return mask(value, name.toLowerCase() === 'access_token' ? 'token' : 'secret');
}

/** Registered secrets by value, then credentials by shape. */
export function scrub(text: string): string {
  const header = (_: string, before: string, name: string, colon: string, value: string): string =>
    `${before}${name}${colon}${maskHeaderValue(name, value)}`;
  return redact(text)
    .replace(CURL_SINGLE_QUOTED, header)
    .replace(CURL_DOUBLE_QUOTED, header)
    .replace(JSON_MEMBER, header)
    .replace(
      BEARER_TOKEN,
      (_: string, space: string, token: string) => `Bearer${space}${mask(token, 'token')}`,
    )
    .replace(URL_USER_INFO, '$1***@');
}

/** Scrubs every string of a JSON-like value, and masks members named like a credential. */
export function scrubJson<T>(value: T): T {
  return scrubValue(value) as T;
}

function scrubValue(value: unknown): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map(scrubValue);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      scrub(key),
      typeof member === 'string' && SECRET_NAMES.has(key.toLowerCase()) && !TYPE_NAMES.has(member)
        ? maskHeaderValue(key, member)
        : scrubValue(member),
    ]),
  );
}
