/**
 * The run's secrets registry: every value that must never be written, shared by every process of a
 * run. Global setup creates a private directory (`openSecretsRegistry`, mode 0700, outside the report
 * directory) and hands it to the workers in the run state; each process appends the secrets it
 * learns to `secrets.jsonl` there (mode 0600), and every redaction first reads what the others
 * appended (a size check when nothing changed). The directory is removed when the process that
 * created it exits. Masking them is redact.ts's job.
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
import { runState, shareRunState } from '../base/run-state.ts';

const SECRETS_FILE = 'secrets.jsonl';

/**
 * Shorter values cannot be masked safely: masking replaces every occurrence, and a short value turns
 * up by chance in ids, words and base64, so reports would be garbled and the masked places would
 * give the value away. Inside base64 only a core of about 4n/3 - 2 characters is stable: 8 characters
 * leave a 10-character core, which does not occur by chance; 4 would leave 4, which does.
 */
export const MIN_SECRET_LENGTH = 8;

export type SecretKind = 'token' | 'secret';

/**
 * Masks a value so that two different secrets stay distinguishable without revealing either:
 * tokens keep their length and last four characters, other secrets only their length.
 */
export function mask(value: string, kind: SecretKind = 'secret'): string {
  if (kind === 'token' && value.length >= 16) return `***(${value.length} chars, …${value.slice(-4)})`;
  return `***(${value.length} chars)`;
}

/** A reproduction's shell variable (`$PIX_CLIENT_SECRET`) stands for a secret and shows none. */
const PLACEHOLDER = /^\$[A-Z][A-Z0-9_]*$/;

export const isMasked = (value: string): boolean => value.startsWith('***') || PLACEHOLDER.test(value);

const known = new Map<string, SecretKind>();
/** Every form a registered secret may take in text, and the mask that replaces it. */
const forms = new Map<string, string>();
/**
 * The forms by their first MIN_SECRET_LENGTH characters, longest first. Masking looks each position of
 * a text up here instead of building one regular expression from every form: a 30 KB token has forms
 * of 40 KB, and V8 refuses a pattern that large ("Regular expression too large").
 */
const formsByPrefix = new Map<string, string[]>();
/** The longest form: a stream's end shorter than it may still become one. */
let longestForm = 0;
/** Every character of the forms' first MIN_SECRET_LENGTH - 1: a shorter end holding another begins no form. */
const beginningCharacters = new Set<string>();
/** PEM armour (`-----BEGIN …`) is public text: only a whole PEM is masked, its body is registered apart. */
const ARMOURED = /^-----/;
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
  shareRunState({ secretsDir: dir });
  // What this process learnt before (the reporter is built before global setup) is shared too.
  for (const [value, kind] of known) append(value, kind);
  // 'exit' also fires after a failed run and after Playwright's own SIGINT handling; the reporter
  // runs after global teardown, so the file must outlive it.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function registryPath(): string | undefined {
  const dir = runState('secretsDir');
  return dir === undefined ? undefined : join(dir, SECRETS_FILE);
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
    if (form.length < MIN_SECRET_LENGTH || forms.has(form)) continue;
    forms.set(form, masked);
    longestForm = Math.max(longestForm, form.length);
    for (let i = 0; i < MIN_SECRET_LENGTH - 1; i++) beginningCharacters.add(form.charAt(i));
    const prefix = form.slice(0, MIN_SECRET_LENGTH);
    const same = formsByPrefix.get(prefix) ?? [];
    same.push(form);
    same.sort((a, b) => b.length - a.length);
    formsByPrefix.set(prefix, same);
  }
  return true;
}

/** Reads the lines other processes appended since the last look. */
export function sync(): void {
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

/** How many characters of `form` the text repeats from `at` on. */
function sharedLength(text: string, at: number, form: string): number {
  let length = MIN_SECRET_LENGTH;
  while (length < form.length && text[at + length] === form[length]) length += 1;
  return length;
}

/**
 * How long a beginning of `form` the text holds at `at`, where it is one: the form cut short (the text
 * ends or leaves the secret's alphabet there) or a near miss of it (all but its last character). Another
 * value that only shares a first word with a secret (`acme-client` beside `acme-secret…`) is none.
 */
function beginningLength(text: string, at: number, form: string): number {
  const length = sharedLength(text, at, form);
  const next = text[at + length];
  return length >= form.length - 1 || next === undefined || !/[A-Za-z0-9]/.test(next) ? length : 0;
}

/**
 * The mask for what the text holds at `at` and its length: a whole form, else the longest beginning
 * of one (a secret cut short, or a near miss of it such as one character short or the last changed).
 */
function maskAt(text: string, at: number): { readonly mask: string; readonly length: number } | undefined {
  const candidates = formsByPrefix.get(text.slice(at, at + MIN_SECRET_LENGTH));
  if (candidates === undefined) return undefined;
  const whole = candidates.find((form) => text.startsWith(form, at));
  if (whole !== undefined) return { mask: forms.get(whole) ?? '***', length: whole.length };
  const part = Math.max(
    0,
    ...candidates.filter((form) => !ARMOURED.test(form)).map((form) => beginningLength(text, at, form)),
  );
  return part === 0 ? undefined : { mask: `***(${part} chars of a secret)`, length: part };
}

/** Masks what starts before `until` (and fits in the text); the masked text up to where the rest begins. */
function maskBefore(text: string, until: number): { readonly masked: string; readonly rest: number } {
  let out = '';
  let copiedTo = 0;
  let at = 0;
  while (at < until && at + MIN_SECRET_LENGTH <= text.length) {
    const found = maskAt(text, at);
    if (found === undefined) {
      at += 1;
      continue;
    }
    out += `${text.slice(copiedTo, at)}${found.mask}`;
    at += found.length;
    copiedTo = at;
  }
  const rest = Math.max(at, until);
  return { masked: copiedTo === 0 ? text.slice(0, rest) : `${out}${text.slice(copiedTo, rest)}`, rest };
}

/**
 * Replaces every registered form in the text with its mask, the longest form first where several
 * start at one place, and every run of MIN_SECRET_LENGTH or more characters that begins one: a cut
 * made before masking leaves the beginning of a secret, and no part that long may be written.
 * Linear in the text for a given registry: one map look-up per position.
 */
export function maskRegisteredForms(text: string): string {
  if (forms.size === 0 || text.length < MIN_SECRET_LENGTH) return text;
  return maskBefore(text, text.length).masked;
}

/** Whether more text after the end could still make a registered form start at `at`. */
function mayBegin(text: string, at: number): boolean {
  const end = text.slice(at);
  if (end.length < MIN_SECRET_LENGTH) {
    for (let i = 0; i < end.length; i++) if (!beginningCharacters.has(end.charAt(i))) return false;
    return true;
  }
  const candidates = formsByPrefix.get(end.slice(0, MIN_SECRET_LENGTH));
  return candidates?.some((form) => form.length > end.length && form.startsWith(end)) ?? false;
}

/**
 * A stream's text masked as far as it is final: the masked part, and where the end to keep begins,
 * shorter than the longest form, from which more text could still make a secret. Masking the kept end
 * before the next piece, and the last end with maskRegisteredForms, masks the stream as one text.
 */
export function maskRegisteredStart(text: string): { readonly masked: string; readonly rest: number } {
  if (forms.size === 0) return { masked: text, rest: text.length };
  let kept = text.length;
  for (let at = Math.max(0, text.length - longestForm + 1); at < text.length; at++) {
    if (mayBegin(text, at)) {
      kept = at;
      break;
    }
  }
  return maskBefore(text, kept);
}
