/**
 * The one redaction path: everything the suite writes or prints (reports, JUnit, summary, console,
 * ledger, attachments, error messages) goes through `redact` (text) or `redactJson` (parsed values).
 *
 * Secrets are masked by value and by shape. By value: the configured credentials and every token a
 * response carried, in every form they travel in (raw, JSON-escaped, URL-encoded, inside base64).
 * By shape, for whatever no process registered: credential headers in curl lines, credential
 * members of JSON and form bodies, long Bearer tokens and user-info in URLs.
 *
 * The registered values come from the run's registry (registry.ts), shared by every process.
 */
import { isMasked, mask, maskRegisteredForms, sync } from './registry.ts';
import { visibleLine } from '../base/visible.ts';

/** Header names whose values are credentials, compared case-insensitively. */
const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'client_secret',
  'cert_client',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** JSON members and form fields whose values are credentials whatever they hold. */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  ...SECRET_HEADERS,
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'password',
]);

const NAMES = [...SECRET_NAMES].map((name) => name.replace(/[-_]/g, '[-_]')).join('|');
/** `-H 'name: value'`, where a quote inside the value is written `'\''` (exchange.ts shellQuote). */
const CURL_SINGLE_QUOTED = new RegExp(`(-H\\s+')(${NAMES})(\\s*:\\s*)((?:'\\\\''|[^'])*)`, 'gi');
const CURL_DOUBLE_QUOTED = new RegExp(`(-H\\s+")(${NAMES})(\\s*:\\s*)((?:\\\\.|[^"\\\\])*)`, 'gi');
const JSON_MEMBER = new RegExp(`(")(${NAMES})("\\s*:\\s*")((?:\\\\.|[^"\\\\])*)`, 'gi');
/** `access_token=…` in a form body or a text/plain answer. */
const FORM_FIELD = new RegExp(`(\\b)(${NAMES})(=)([^&\\s"']+)`, 'gi');
/** Shorter words after "Bearer" are prose ("the Bearer token"), not credentials. */
const BEARER_TOKEN = /\bBearer(\s+)(?!\*\*\*)([A-Za-z0-9\-._~+/]{16,}=*)/g;
/**
 * Each pattern that scans a run of characters starts only where such a run starts, so that a hostile body
 * of 4 MiB (`A-A-A-…`, `?tokentoken…`) is masked in one pass, not rescanned from every position in it.
 */
/** From the start of the run of scheme characters before `://`, so also `.https://…` or `-https://…`. */
const URL_USER_INFO = /(?<![a-z0-9+.-])([a-z0-9+.-]+:\/\/)[^\s/@'"]+@/gi;
/** A query parameter named like a credential (`?api_key=…`, `&sig=…`), wherever a URL is written. */
const QUERY_CREDENTIAL =
  /([?&;])((?=[\w.-]*?(?:token|secret|passw(?:or)?d|signature|api[-_]?key|credential|session|auth))[\w.-]+=|(?:key|sig)=)([^&#\s"'<>]+)/gi;

/**
 * What shapeOf (shape.ts) writes in place of a value: `{"access_token":"string"}` is a response's
 * shape, and masking it would hide its type from the report and from a baseline.
 */
const TYPE_NAMES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'null', 'object', 'array']);

/** Masks a credential's value, keeping an authorization scheme readable. */
function maskCredential(name: string, value: string): string {
  if (value === '' || isMasked(value)) return value;
  const scheme = /^(\S+)\s+(.+)$/.exec(value);
  if (name.toLowerCase().endsWith('authorization') && scheme !== null) {
    const [, word = '', credential = ''] = scheme;
    return `${word} ${isMasked(credential) ? credential : mask(credential, 'token')}`;
  }
  return mask(value, /token/i.test(name) ? 'token' : 'secret');
}

function redactSynced(text: string): string {
  const credential = (_: string, before: string, name: string, separator: string, value: string): string =>
    `${before}${name}${separator}${maskCredential(name, value)}`;
  const byShape = text
    .replace(URL_USER_INFO, '$1***@')
    .replace(QUERY_CREDENTIAL, (_: string, before: string, name: string, value: string) =>
      isMasked(value) ? `${before}${name}${value}` : `${before}${name}${mask(value)}`,
    )
    .replace(CURL_SINGLE_QUOTED, credential)
    .replace(CURL_DOUBLE_QUOTED, credential)
    .replace(JSON_MEMBER, credential)
    .replace(FORM_FIELD, credential)
    .replace(
      BEARER_TOKEN,
      (_: string, space: string, token: string) => `Bearer${space}${mask(token, 'token')}`,
    );
  return maskRegisteredForms(byShape);
}

/** Masks every secret in a text: registered ones in all their forms, and credentials by their shape. */
export function redact(text: string): string {
  sync();
  return redactSynced(text);
}

/**
 * The one cut of evidence text: redacts, then cuts to `max` characters, so a cut never splits a
 * secret, only a mask; a secret some other writer cut before is masked by what is left of it.
 */
export function excerpt(
  text: string,
  max: number,
  more = (left: number): string => `… (${left} more characters)`,
): string {
  const clean = redact(text);
  return clean.length > max ? `${clean.slice(0, max)}${more(clean.length - max)}` : clean;
}

/**
 * The one console escaping: a line as every command, the receiver and the reporters print it, its
 * secrets masked, its controls (C0, C1, DEL) and line breaks escaped as in the reports.
 */
export function consoleLine(text: string): string {
  return visibleLine(redact(text));
}

/** Masks secret headers by name and registered secrets by value, names included. */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  sync();
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      redactSynced(name),
      SECRET_HEADERS.has(name.toLowerCase()) ? maskCredential(name, value) : redactSynced(value),
    ]),
  );
}

function redactValue(value: unknown, key?: string): unknown {
  if (typeof value === 'string') {
    const credential = key !== undefined && SECRET_NAMES.has(key.toLowerCase()) && !TYPE_NAMES.has(value);
    return credential ? maskCredential(key, value) : redactSynced(value);
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [redactSynced(name), redactValue(member, name)]),
  );
}

/**
 * Masks every string and every member name of a parsed value, and the values of members named like
 * a credential. Works on the parsed value, so a secret the JSON text escaped is found too.
 */
export function redactJson<T>(value: T): T {
  sync();
  return redactValue(value) as T;
}
