/**
 * Every token a response carries is a secret from the moment it arrives, whatever the status and
 * the content type: the access token of a valid request, one issued in answer to a negative case,
 * refresh and id tokens, a token served as text/plain (`access_token=…`) or as the bare body. The
 * HTTP layer hands every response here before anyone can print it.
 */
import { readPath, type JsonValue } from '../base/json.ts';
import { registerSecret } from './registry.ts';

/** access_token, refreshToken, id_token, token, client_secret, password…; not token_type or expires_in. */
const TOKEN_LIKE = /(?:token|secret|password|jwt|assertion)$/;
const isTokenLike = (name: string): boolean => TOKEN_LIKE.test(name.toLowerCase().replace(/[^a-z]/g, ''));

/**
 * `access_token=value` or `refresh_token: value`, quoted or not: form bodies, text/plain answers,
 * echoed headers. The name is matched by its ending, which keeps the scan of a large body fast.
 */
const KEY_VALUE = /(?:token|secret|password|jwt|assertion)["']?\s*[=:]\s*["']?([\w\-.~+/%]{8,}=*)/gi;
const BARE_TOKEN = /^[\w\-.~+/]{16,8192}=*$/;
const JWT = /\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g;

/**
 * Bounds the work a hostile response can cause. The token bound is wide: a provider that echoes every
 * token it issued in each refusal (a run issues a few hundred, access, refresh and id) must have the
 * last of them registered too, or the one it echoes last reaches a report.
 */
const MAX_NODES = 10_000;
const MAX_DEPTH = 8;
const MAX_TOKENS = 1_024;

export interface HarvestInput {
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyText: string;
  readonly json: JsonValue | undefined;
}

function withoutScheme(value: string): string {
  return value.replace(/^(?:Bearer|Basic)\s+/i, '').trim();
}

/** Name and value of each member or item, read lazily: a walk that stops early reads no further. */
function* membersOf(value: JsonValue[] | { [key: string]: JsonValue }): Generator<[string, JsonValue]> {
  if (Array.isArray(value)) {
    for (const item of value) yield ['', item];
    return;
  }
  for (const name in value) yield [name, value[name] ?? null];
}

/** Token-like members, and tokens written as text inside other strings. */
function fromJson(json: JsonValue | undefined, found: Set<string>): void {
  let nodes = 0;
  const walk = (value: JsonValue | undefined, depth: number): void => {
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return;
    for (const [name, member] of membersOf(value)) {
      if (++nodes > MAX_NODES || found.size >= MAX_TOKENS) return;
      if (typeof member !== 'string') walk(member, depth + 1);
      else if (isTokenLike(name)) found.add(withoutScheme(member));
      else fromText(member, found);
    }
  };
  walk(json, 0);
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

function fromText(text: string, found: Set<string>): void {
  for (const [, value = ''] of text.matchAll(KEY_VALUE)) {
    if (found.size >= MAX_TOKENS) return;
    found.add(value).add(decoded(value));
  }
  for (const [jwt] of text.matchAll(JWT)) {
    if (found.size >= MAX_TOKENS) return;
    found.add(jwt);
  }
}

/**
 * Registers the tokens of a response. `tokenOperation` marks the token operation's answers, where a
 * bare body that looks like a token is taken for one; `tokenField` is PIX_TOKEN_FIELD, read wherever
 * it points even when its name does not look like a token's.
 */
export function harvestTokens(response: HarvestInput, tokenOperation: boolean, tokenField: string): void {
  const found = new Set<string>();
  const configured = readPath(response.json, tokenField);
  if (typeof configured === 'string') found.add(withoutScheme(configured));
  if (response.json === undefined) fromText(response.bodyText, found);
  else fromJson(response.json, found);
  for (const [name, value] of Object.entries(response.headers)) {
    if (name === 'authorization' || isTokenLike(name)) found.add(withoutScheme(value));
  }
  const body = response.bodyText.trim();
  if (tokenOperation && BARE_TOKEN.test(body) && /\d/.test(body)) found.add(body);
  for (const token of found) registerSecret(token, 'token');
}
