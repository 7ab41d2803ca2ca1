/**
 * The one redaction path: everything the suite writes or prints (reports, JUnit, summary, console,
 * ledger, attachments, error messages) goes through `redact` (text) or `redactJson` (parsed values).
 *
 * Secrets are masked by value and by shape. By value: the configured credentials and every token a
 * response carried, in every form they travel in (raw, JSON-escaped, URL-encoded, inside base64).
 * By shape, for whatever no process registered: credential headers in curl lines, credential
 * members of JSON and form bodies, long Bearer tokens and user-info in URLs.
 *
 * One registry serves every process of a run. Global setup creates a private directory
 * (`openSecretsRegistry`, mode 0700, outside the report directory) and names it to the workers in
 * PIX_SECRETS_DIR; each process appends the secrets it learns to `secrets.jsonl` there (mode 0600),
 * and every redaction first reads what the others appended (a size check when nothing changed).
 * The directory is removed when the process that created it exits.
 */
import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';

/** The internal variable naming the run's registry directory (listed in config.ts INTERNAL_VARIABLES). */
export const SECRETS_DIR_VARIABLE = 'PIX_SECRETS_DIR';
const SECRETS_FILE = 'secrets.jsonl';

/**
 * Shorter values cannot be masked safely: masking replaces every occurrence, and a short value turns
 * up by chance in ids, words and base64, so reports would be garbled and the masked places would
 * give the value away. Inside base64 only a core of about 4n/3 - 2 characters is stable: 8 characters
 * leave a 10-character core, which does not occur by chance; 4 would leave 4, which does.
 */
export const MIN_SECRET_LENGTH = 8;

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

export type SecretKind = 'token' | 'secret';

/**
 * Masks a value so that two different secrets stay distinguishable without revealing either:
 * tokens keep their length and last four characters, other secrets only their length.
 */
function mask(value: string, kind: SecretKind = 'secret'): string {
  if (kind === 'token' && value.length >= 16) return `***(${value.length} chars, …${value.slice(-4)})`;
  return `***(${value.length} chars)`;
}

/** A reproduction's shell variable (`$PIX_CLIENT_SECRET`) stands for a secret and shows none. */
const PLACEHOLDER = /^\$[A-Z][A-Z0-9_]*$/;

const isMasked = (value: string): boolean => value.startsWith('***') || PLACEHOLDER.test(value);

// --- The registry ------------------------------------------------------------------------------

const known = new Map<string, SecretKind>();
/** Every form a registered secret may take in text, and the mask that replaces it. */
const forms = new Map<string, string>();
let formPattern: RegExp | undefined;
/** How far this process has read the shared file (only whole lines are consumed). */
let registry = { path: '', offset: 0 };

/** Named after the process that removes it: `pix-secrets-<pid>-<random>`. */
const REGISTRY_NAME = /^pix-secrets-(\d+)-/;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Registries of runs killed outright (SIGKILL skips the exit hook): this user's, whose creator is gone. */
function removeAbandonedRegistries(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = REGISTRY_NAME.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    const path = join(tmpdir(), name);
    // Another run may be removing the same one at this moment.
    if (statSync(path, { throwIfNoEntry: false })?.uid === process.getuid?.())
      rmSync(path, { recursive: true, force: true });
  }
}

/** The run-private directory of the shared registry; created by global setup, once per run. */
export function openSecretsRegistry(): string {
  removeAbandonedRegistries();
  const dir = mkdtempSync(join(tmpdir(), `pix-secrets-${process.pid}-`));
  process.env[SECRETS_DIR_VARIABLE] = dir;
  // What this process learnt before (the reporter is built before global setup) is shared too.
  for (const [value, kind] of known) append(value, kind);
  // 'exit' also fires after a failed run and after Playwright's own SIGINT handling; the reporter
  // runs after global teardown, so the file must outlive it.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function registryPath(): string | undefined {
  const dir = process.env[SECRETS_DIR_VARIABLE];
  return dir === undefined || dir === '' ? undefined : join(dir, SECRETS_FILE);
}

/** The stable part of `bytes` inside any base64 text, for each of the three byte alignments. */
function base64Cores(bytes: Buffer): string[] {
  return [0, 1, 2].flatMap((shift) => {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    return [core, core.replace(/\+/g, '-').replace(/\//g, '_')];
  });
}

function formsOf(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  return [
    value,
    json,
    // PHP and others escape slashes, which base64 tokens contain.
    json.replace(/\//g, '\\/'),
    encodeURIComponent(value),
    new URLSearchParams([['', value]]).toString().slice(1),
    ...base64Cores(Buffer.from(value, 'utf8')),
  ];
}

/** Adds a secret to this process's view; false when it was known or is too short to mask. */
function learn(value: string, kind: SecretKind): boolean {
  if (value.length < MIN_SECRET_LENGTH || known.has(value)) return false;
  known.set(value, kind);
  const masked = mask(value, kind);
  for (const form of formsOf(value)) {
    if (form.length >= MIN_SECRET_LENGTH && !forms.has(form)) forms.set(form, masked);
  }
  formPattern = undefined;
  return true;
}

/** Reads the lines other processes appended since the last look. */
function sync(): void {
  const path = registryPath();
  if (path === undefined) return;
  if (registry.path !== path) registry = { path, offset: 0 };
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return;
  }
  if (size <= registry.offset) return;
  const buffer = Buffer.alloc(size - registry.offset);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, registry.offset);
  } finally {
    closeSync(fd);
  }
  // A line another process is still writing is read next time.
  const end = buffer.lastIndexOf(0x0a) + 1;
  registry.offset += end;
  for (const line of buffer.subarray(0, end).toString('utf8').split('\n')) {
    if (line === '') continue;
    const { value, kind } = JSON.parse(line) as { value: string; kind: SecretKind };
    learn(value, kind);
  }
}

/** Whether the run registered this exact value as a secret: a credential of the configuration or a token. */
export function isRegisteredSecret(value: string): boolean {
  sync();
  return known.has(value);
}

/** Registers a secret so that every process of the run masks it from now on, in all its forms. */
export function registerSecret(value: string | undefined, kind: SecretKind = 'secret'): void {
  if (value === undefined) return;
  sync();
  if (learn(value, kind)) append(value, kind);
}

function append(value: string, kind: SecretKind): void {
  const path = registryPath();
  if (path !== undefined) appendFileSync(path, `${JSON.stringify({ value, kind })}\n`, { mode: 0o600 });
}

/** The PEM text inside a base64 cert_client, if that is what it holds. */
function decodedPem(base64: string): string | undefined {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  return /-----BEGIN [^-]+-----/.test(text) ? text : undefined;
}

/** A PEM text whole, its body in one piece, and each body line, as each may be printed. */
function registerPem(pem: string): void {
  registerSecret(pem.trim());
  const body = pem
    .split(/\r?\n/)
    .filter((line) => line !== '' && !line.startsWith('-----') && !/^[\w-]+: /.test(line));
  registerSecret(body.join(''));
  for (const line of body) registerSecret(line);
}

/**
 * Registers what the configuration holds that must never be written: credentials, URL user-info, the
 * client certificate's private key (PEM or PKCS#12) and passphrase, and the key that signs the report.
 */
export function registerConfigSecrets(config: Config): void {
  registerSecret(config.clientSecret);
  registerSecret(config.webhook.receiverToken);
  registerSecret(config.certClient);
  const pem = decodedPem(config.certClient);
  if (pem !== undefined) registerPem(pem);
  const client = config.tls.client;
  if (client !== undefined) {
    registerSecret(client.passphrase);
    if ('key' in client) registerPem(client.key);
    else registerSecret(client.pfx.toString('base64'));
  }
  if (config.signingKey !== undefined) registerPem(config.signingKey.pem);
  if (config.baseUrl !== undefined) {
    const { username, password } = new URL(config.baseUrl);
    for (const part of [username, password].filter((p) => p !== '')) registerSecret(decoded(part));
  }
}

function decoded(component: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    return component;
  }
}

// --- Masking -------------------------------------------------------------------------------------

const NAMES = [...SECRET_NAMES].map((name) => name.replace(/[-_]/g, '[-_]')).join('|');
/** `-H 'name: value'`, where a quote inside the value is written `'\''` (exchange.ts shellQuote). */
const CURL_SINGLE_QUOTED = new RegExp(`(-H\\s+')(${NAMES})(\\s*:\\s*)((?:'\\\\''|[^'])*)`, 'gi');
const CURL_DOUBLE_QUOTED = new RegExp(`(-H\\s+")(${NAMES})(\\s*:\\s*)((?:\\\\.|[^"\\\\])*)`, 'gi');
const JSON_MEMBER = new RegExp(`(")(${NAMES})("\\s*:\\s*")((?:\\\\.|[^"\\\\])*)`, 'gi');
/** `access_token=…` in a form body or a text/plain answer. */
const FORM_FIELD = new RegExp(`(\\b)(${NAMES})(=)([^&\\s"']+)`, 'gi');
/** Shorter words after "Bearer" are prose ("the Bearer token"), not credentials. */
const BEARER_TOKEN = /\bBearer(\s+)(?!\*\*\*)([A-Za-z0-9\-._~+/]{16,}=*)/g;
const URL_USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@'"]+@/gi;

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

function patternOfForms(): RegExp {
  formPattern ??= new RegExp(
    [...forms.keys()]
      .sort((a, b) => b.length - a.length)
      .map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  return formPattern;
}

function redactSynced(text: string): string {
  const credential = (_: string, before: string, name: string, separator: string, value: string): string =>
    `${before}${name}${separator}${maskCredential(name, value)}`;
  const byShape = text
    .replace(URL_USER_INFO, '$1***@')
    .replace(CURL_SINGLE_QUOTED, credential)
    .replace(CURL_DOUBLE_QUOTED, credential)
    .replace(JSON_MEMBER, credential)
    .replace(FORM_FIELD, credential)
    .replace(
      BEARER_TOKEN,
      (_: string, space: string, token: string) => `Bearer${space}${mask(token, 'token')}`,
    );
  return forms.size === 0 ? byShape : byShape.replace(patternOfForms(), (form) => forms.get(form) ?? '***');
}

/** Masks every secret in a text: registered ones in all their forms, and credentials by their shape. */
export function redact(text: string): string {
  sync();
  return redactSynced(text);
}

/** Redacts, then cuts to `max` characters: a cut never splits a secret, only a mask. */
export function excerpt(text: string, max: number): string {
  const clean = redact(text);
  return clean.length > max ? `${clean.slice(0, max)}… (${clean.length - max} more characters)` : clean;
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
