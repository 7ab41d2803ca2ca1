/**
 * The suite's public configuration: the PIX_* variables. Everything is validated before any
 * request, and the problems found stop the run, all at once, one line each naming the variable and
 * what to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { keyKindOf, keyProblem, isValidDocument } from './pix-keys.ts';
import { collect } from './pem.ts';
import { MIN_SECRET_LENGTH } from '../secrets/redact.ts';
import { readSigningKey, type SigningKey } from '../secrets/signing.ts';
import { NO_TLS, readTlsConfig, type TlsConfig } from '../transport/tls.ts';

export type Mode = 'mock' | 'live';

export interface Payee {
  readonly keyType: string;
  readonly key: string;
  readonly document: string;
  readonly name: string;
}

export interface WebhookSettings {
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string | undefined;
  /** A remote receiver (npm run receiver) and its token, as given; validated by webhook/remote.ts. */
  readonly receiverUrl: string | undefined;
  readonly receiverToken: string | undefined;
  readonly timeoutMs: number;
  /** How long the suite keeps listening after the first delivery, to see duplicates. */
  readonly graceMs: number;
}

export interface Config {
  /** PIX_ENV_NAME: how the reports name the environment; undefined lets them name it by its base URL. */
  readonly environmentName: string | undefined;
  readonly mode: Mode;
  /** Live mode: PIX_BASE_URL. Mock mode: undefined until the embedded mock is started. */
  readonly baseUrl: string | undefined;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly certClient: string;
  readonly payee: Payee;
  /** The amount as configured (at most two decimals) and as the JSON number sent. */
  readonly amountText: string;
  readonly amount: number;
  readonly allowPayouts: boolean;
  readonly allowInsecure: boolean;
  /** PIX_CA_FILE and the client certificate (PIX_TLS_*), read and checked; see tls.ts. */
  readonly tls: TlsConfig;
  readonly tokenField: string;
  readonly webhook: WebhookSettings;
  readonly reportDir: string;
  /** PIX_SIGNING_KEY_FILE, read and checked: the run signs certification.json with it (certification.sig). */
  readonly signingKey: SigningKey | undefined;
  readonly strict: boolean;
  readonly requireComplete: boolean;
  readonly maxPayouts: number;
  readonly maxTotal: number;
  readonly codePrefix: string;
  readonly requestTimeoutMs: number;
  /** Bytes of a response body, counted after decompression, past which the exchange is a transport error. */
  readonly maxResponseBytes: number;
  readonly dryRun: boolean;
  readonly baseline: string | undefined;
  readonly failOnDrift: boolean;
  /** PIX_SEED: replays the invented values of an earlier run; undefined lets the run pick one. */
  readonly seed: number | undefined;
}

/** One mistake in the configuration, told in one line. */
export interface ConfigProblem {
  readonly variable: string;
  /** The whole line: the variable, what is wrong with it, and what to do. */
  readonly line: string;
}

/**
 * The configuration cannot run: the run stops with exit code 2 and one line per problem. Thrown with
 * one problem (`new ConfigError(variable, problem, fix)`) or, by loadConfig, with every problem found.
 */
export class ConfigError extends Error {
  /** At least one, in the order the variables were read. */
  readonly problems: readonly ConfigProblem[];
  /** The variable of the first problem. */
  readonly variable: string;

  constructor(variable: string, problem: string, fix: string);
  constructor(problems: readonly [ConfigProblem, ...ConfigProblem[]]);
  constructor(first: string | readonly [ConfigProblem, ...ConfigProblem[]], problem = '', fix = '') {
    const problems =
      typeof first === 'string' ? [{ variable: first, line: `${first}: ${problem}. ${fix}` }] : first;
    super(problems.map((p) => p.line).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
    this.variable = problems[0].variable;
  }
}

/** One PIX_* variable as --help and .env.example document it. */
export interface VariableSpec<Name extends string = string> {
  readonly name: Name;
  /** What it does, in a few words: its line in --help. */
  readonly purpose: string;
  /** The value when it is unset, as a person reads it; absent when unset means none. */
  readonly default?: string;
  /** Only a provider uses it: set while PIX_BASE_URL is not, it tells that the target was forgotten. */
  readonly liveOnly?: true;
}

// One row per variable, so that adding one is a one-line change; VARIABLES and --help come from here.
// prettier-ignore
const VARIABLE_ROWS = [
  { name: 'PIX_ENV_NAME', purpose: 'a label for the environment, first in every report ("Provider X UAT")', default: 'the base URL' },
  { name: 'PIX_BASE_URL', purpose: 'base address of the environment under test', default: 'the embedded mock' },
  { name: 'PIX_CLIENT_ID', purpose: 'client_id issued in your client dashboard', liveOnly: true },
  { name: 'PIX_CLIENT_SECRET', purpose: 'client_secret issued in your client dashboard', liveOnly: true },
  { name: 'PIX_CERT_CLIENT', purpose: 'cert_client as sent: base64 of the certificate public key', liveOnly: true },
  { name: 'PIX_CERT_FILE', purpose: 'or the public key file, which the suite base64-encodes', liveOnly: true },
  { name: 'PIX_PAYEE_KEY_TYPE', purpose: "your payee's key type: CPF, CNPJ, PHONE, EMAIL, EVP (provider's spelling)", liveOnly: true },
  { name: 'PIX_PAYEE_KEY', purpose: "your own payee's Pix key: every withdrawal goes there", liveOnly: true },
  { name: 'PIX_PAYEE_DOCUMENT', purpose: "your payee's CPF or CNPJ, no punctuation", liveOnly: true },
  { name: 'PIX_PAYEE_NAME', purpose: "your payee's name", liveOnly: true },
  { name: 'PIX_AMOUNT', purpose: 'amount of each withdrawal in BRL, at most two decimals', default: '0.01' },
  { name: 'PIX_ALLOW_PAYOUTS', purpose: '1 allows POST /pix/payment, which may move money', default: '0', liveOnly: true },
  { name: 'PIX_ALLOW_INSECURE', purpose: '1 allows plain http:// to another host; the report warns', default: '0', liveOnly: true },
  { name: 'PIX_MAX_PAYOUTS', purpose: 'the run refuses a plan that may make more payouts', default: '60' },
  { name: 'PIX_MAX_TOTAL', purpose: 'the run refuses a plan that may pay out more, in BRL', default: '60 x PIX_AMOUNT' },
  { name: 'PIX_CODE_PREFIX', purpose: 'prefix of every withdrawal code, before run id and counter', default: 'pixsuite-' },
  { name: 'PIX_CA_FILE', purpose: 'a private CA (PEM) trusted beside the public ones, for the API and a remote receiver', liveOnly: true },
  { name: 'PIX_TLS_CERT_FILE', purpose: 'client certificate for mutual TLS with the API (PEM, chain may follow)', liveOnly: true },
  { name: 'PIX_TLS_KEY_FILE', purpose: 'and its private key (PEM, may be encrypted: see PIX_TLS_PASSPHRASE)', liveOnly: true },
  { name: 'PIX_TLS_PFX_FILE', purpose: 'or the client certificate and key in one PKCS#12 file (.pfx, .p12)', liveOnly: true },
  { name: 'PIX_TLS_PASSPHRASE', purpose: 'passphrase of the PFX or of an encrypted key, a secret', liveOnly: true },
  { name: 'PIX_TOKEN_FIELD', purpose: 'field or dotted path of the token in the token response', default: 'access_token' },
  { name: 'PIX_WEBHOOK_HOST', purpose: 'address the webhook receiver binds to', default: '127.0.0.1' },
  { name: 'PIX_WEBHOOK_PORT', purpose: 'port of the webhook receiver', default: '0, any free port' },
  { name: 'PIX_WEBHOOK_PUBLIC_URL', purpose: 'address at which the provider reaches the receiver', default: 'the bound address' },
  { name: 'PIX_WEBHOOK_TIMEOUT_MS', purpose: 'how long to wait for a webhook', default: '15000 live, 3000 mock' },
  { name: 'PIX_WEBHOOK_RECEIVER_URL', purpose: 'a remote receiver (npm run receiver): base of every PostBackUrl', default: "the suite's own receiver" },
  { name: 'PIX_WEBHOOK_RECEIVER_TOKEN', purpose: "that receiver's token (its PIX_RECEIVER_TOKEN), a secret" },
  { name: 'PIX_REQUEST_TIMEOUT_MS', purpose: 'bound on every request, and on the preflight', default: '10000' },
  { name: 'PIX_MAX_RESPONSE_BYTES', purpose: 'bound on every response body, in bytes after decompression', default: '4194304 (4 MiB)' },
  { name: 'PIX_REPORT_DIR', purpose: 'where the reports and the ledger are written', default: 'reports' },
  { name: 'PIX_SIGNING_KEY_FILE', purpose: 'a PEM private key (Ed25519, ECDSA, RSA; unencrypted) that signs the certification' },
  { name: 'PIX_STRICT', purpose: '1: a WARNING or an INCOMPLETE run fails too (exit 1)', default: '0' },
  { name: 'PIX_REQUIRE_COMPLETE', purpose: '1: an INCOMPLETE run fails (exit 1); set it in a CI gate', default: '0' },
  { name: 'PIX_DRY_RUN', purpose: '1: print the plan and the checks, send nothing (like --list)', default: '0' },
  { name: 'PIX_BASELINE', purpose: 'an earlier certification.json to compare the run with (like --baseline)' },
  { name: 'PIX_FAIL_ON_DRIFT', purpose: '1: a regression since the baseline fails the run (exit 1)', default: '0' },
  { name: 'PIX_SEED', purpose: 'replays the values an earlier run invented (its run.seed)', default: 'a new seed per run' },
  { name: 'PIX_MOCK_PORT', purpose: 'port of npm run mock', default: '4010' },
  { name: 'PIX_SANDBOX_HOST', purpose: 'address of npm run sandbox', default: '127.0.0.1' },
  { name: 'PIX_SANDBOX_PORT', purpose: 'port of npm run sandbox', default: '4020' },
  { name: 'PIX_SANDBOX_TLS_CERT_FILE', purpose: 'npm run sandbox serves https with this certificate (PEM)', default: 'plain http' },
  { name: 'PIX_SANDBOX_TLS_KEY_FILE', purpose: 'and its private key (PEM)' },
  { name: 'PIX_SANDBOX_CLIENT_CA_FILE', purpose: 'npm run sandbox demands client certificates this CA signed (PEM)' },
  { name: 'PIX_RECEIVER_HOST', purpose: 'address npm run receiver listens on', default: '127.0.0.1' },
  { name: 'PIX_RECEIVER_PORT', purpose: 'port of npm run receiver', default: '4030' },
  { name: 'PIX_RECEIVER_TOKEN', purpose: "npm run receiver's control API token, 32 characters or more (required)" },
  { name: 'PIX_RECEIVER_DATA_DIR', purpose: 'where npm run receiver persists deliveries', default: './receiver-data' },
  { name: 'PIX_RECEIVER_TLS_CERT_FILE', purpose: "npm run receiver's own TLS certificate (PEM)" },
  { name: 'PIX_RECEIVER_TLS_KEY_FILE', purpose: 'and its private key (PEM)' },
  { name: 'PIX_RECEIVER_CLIENT_CA_FILE', purpose: "CA of the provider's client certificates, recorded per webhook" },
  { name: 'PIX_RECEIVER_REQUIRE_CLIENT_CERT', purpose: '1: npm run receiver refuses webhooks without such a certificate', default: '0' },
] as const satisfies readonly VariableSpec[];

export type VariableName = (typeof VARIABLE_ROWS)[number]['name'];

/** Every variable the suite reads; any other PIX_* variable is most likely a typo and stops the run. */
export const VARIABLE_TABLE: readonly VariableSpec<VariableName>[] = VARIABLE_ROWS;
export const VARIABLES: readonly VariableName[] = VARIABLE_ROWS.map((v) => v.name);

/** Set by the suite itself for its worker processes; not part of the user's interface. */
export const INTERNAL_VARIABLES = [
  'PIX_MOCK_URL',
  'PIX_RUN_ID',
  'PIX_WEBHOOK_CONTROL_URL',
  'PIX_OUTPUT_DIR',
  'PIX_SECRETS_DIR',
  'PIX_WEBHOOK_CONTROL_TOKEN',
] as const;

/** Defaults that let the complete plan run at the default amount (see plan.ts and the README). */
export const DEFAULT_MAX_PAYOUTS = 60;
export const DEFAULT_AMOUNT = '0.01';
/** Far above any real answer of the two operations, far below what would strain memory. */
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The mock accepts any credential value; these placeholders only make the requests well-formed. */
const MOCK_CREDENTIALS = {
  clientId: 'mock-client-id',
  clientSecret: 'mock-client-secret-000000',
  certClient: Buffer.from('-----BEGIN PUBLIC KEY-----\nmock\n-----END PUBLIC KEY-----\n').toString('base64'),
};

const MOCK_PAYEE: Payee = {
  keyType: 'EVP',
  key: '123e4567-e89b-12d3-a456-426614174000',
  document: '52998224725',
  name: 'Mock Payee',
};

type Env = Readonly<Record<string, string | undefined>>;

/** Reads `.env` when present; variables already in the environment win. */
export function environmentWithDotEnv(env: Env = process.env, dotEnvPath = resolve('.env')): Env {
  if (!existsSync(dotEnvPath)) return env;
  // Editors on Windows save UTF-8 with a byte order mark, which would otherwise become part of the first name.
  const text = readFileSync(dotEnvPath, 'utf8').replace(/^\uFEFF/, '');
  return { ...parseEnv(text), ...stripUndefined(env) };
}

function stripUndefined(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(value: string): boolean {
  return value.length > 0 && BASE64.test(value);
}

class Reader {
  /** Every problem found so far: loadConfig reports them all at once. */
  readonly problems: ConfigProblem[] = [];

  constructor(private readonly env: Env) {}

  /** Runs one validation; a ConfigError is kept and the fallback stands in, so that reading goes on. */
  check<T>(validate: () => T, fallback: T): T {
    try {
      return validate();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.problems.push(...error.problems);
      return fallback;
    }
  }

  text(name: VariableName): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  flag(name: VariableName): boolean {
    const value = this.text(name);
    if (value === undefined || value === '0') return false;
    if (value !== '1')
      this.report(name, `is '${value}'`, 'Set it to 1 to enable or 0 (or leave it unset) to disable.');
    return value === '1';
  }

  integer(name: VariableName, fallback: number, min: number, max: number): number {
    const value = this.text(name);
    if (value === undefined) return fallback;
    const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(parsed) && parsed >= min && parsed <= max) return parsed;
    this.report(name, `is '${value}'`, `Use a whole number from ${min} to ${max}.`);
    return fallback;
  }

  /** The value, or undefined with the problem recorded. */
  required(name: VariableName, why: string): string | undefined {
    const value = this.text(name);
    if (value === undefined) this.report(name, this.absence(name), why);
    return value;
  }

  /** How an unset variable is missing: an empty one is often a CI secret that does not exist. */
  absence(name: VariableName): string {
    return this.env[name] === undefined ? 'is not set' : 'is empty';
  }

  report(name: VariableName, problem: string, fix: string): void {
    this.problems.push(...new ConfigError(name, problem, fix).problems);
  }

  throwIfAny(): void {
    const [first, ...rest] = this.problems;
    if (first !== undefined) throw new ConfigError([first, ...rest]);
  }
}

/** The number of single-character edits that turn one name into the other. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The variable a mistyped name most likely meant, if one is close enough to suggest. */
export function closestVariable(name: string): VariableName | undefined {
  const typed = name.toUpperCase();
  // A few edits, and fewer than a quarter of the distinctive part: PIX_URL suggests nothing.
  const limit = Math.min(3, Math.ceil(typed.replace(/^PIX_/, '').length / 4));
  let best: { name: VariableName; distance: number } | undefined;
  for (const candidate of VARIABLES) {
    const distance = editDistance(typed, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}

function unknownVariables(env: Env): ConfigProblem[] {
  const known = new Set<string>([...VARIABLES, ...INTERNAL_VARIABLES]);
  return Object.keys(env)
    .filter((name) => name.toUpperCase().startsWith('PIX_') && !known.has(name))
    .map((name) => {
      const guess = closestVariable(name);
      const fix =
        guess === undefined
          ? 'Check the spelling: npm run certify -- --help and .env.example list every variable.'
          : `Did you mean ${guess}?`;
      return { variable: name, line: `${name}: is not a variable of this suite. ${fix}` };
    });
}

/**
 * A variable only a provider uses, set while PIX_BASE_URL is not, means the target was forgotten (a
 * missing CI secret): running the embedded mock instead would certify nothing and still exit 0.
 */
function checkTargetGiven(read: Reader): void {
  if (read.text('PIX_BASE_URL') !== undefined) return;
  const given = VARIABLE_TABLE.filter((v) => {
    const value = read.text(v.name);
    return v.liveOnly === true && value !== undefined && value !== v.default;
  }).map((v) => v.name);
  if (given.length === 0) return;
  const list =
    given.length === 1
      ? `${given.join('')} is`
      : `${given.slice(0, -1).join(', ')} and ${given.slice(-1).join('')} are`;
  read.report(
    'PIX_BASE_URL',
    `${read.absence('PIX_BASE_URL')}, but ${list} set, which only a provider uses`,
    "Set PIX_BASE_URL to the provider's base address (in CI: does its secret exist?), or unset those to run against the embedded mock.",
  );
}

/** A shorter secret cannot be masked safely in reports and logs (see MIN_SECRET_LENGTH in redact.ts). */
function maskable(name: VariableName, secret: string, what = 'the secret'): string {
  if (secret === '' || secret.length >= MIN_SECRET_LENGTH) return secret;
  throw new ConfigError(
    name,
    `${what} is ${secret.length} characters long, too short to be masked safely in reports and logs`,
    `Use a credential of at least ${MIN_SECRET_LENGTH} characters.`,
  );
}

function readBaseUrl(read: Reader, allowInsecure: boolean): string | undefined {
  const raw = read.text('PIX_BASE_URL');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      'PIX_BASE_URL',
      `'${raw}' is not a URL`,
      'Use the base address, e.g. https://api.example.com.',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError('PIX_BASE_URL', `uses ${url.protocol}`, 'Use an https:// address.');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecure) {
    throw new ConfigError(
      'PIX_BASE_URL',
      `is plain http to ${url.hostname}, which would send credentials unencrypted`,
      'Use https://, or set PIX_ALLOW_INSECURE=1 if you really mean it (the report will warn).',
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError('PIX_BASE_URL', 'has a query or fragment', 'Give only the base address.');
  }
  maskable('PIX_BASE_URL', url.password || url.username, 'the credential in its user-info');
  return url.toString().replace(/\/+$/, '');
}

function readCertClient(read: Reader): string | undefined {
  const inline = read.text('PIX_CERT_CLIENT');
  const file = read.text('PIX_CERT_FILE');
  if (inline !== undefined && file !== undefined) {
    throw new ConfigError('PIX_CERT_FILE', 'is set together with PIX_CERT_CLIENT', 'Set only one of them.');
  }
  if (file !== undefined) {
    if (!existsSync(file))
      throw new ConfigError(
        'PIX_CERT_FILE',
        `'${file}' does not exist`,
        'Give the path of the public key file.',
      );
    return readFileSync(file).toString('base64');
  }
  const value = read.required(
    'PIX_CERT_CLIENT',
    'Set PIX_CERT_CLIENT to the base64 cert_client value, or PIX_CERT_FILE to the public key file.',
  );
  if (value !== undefined && !isBase64(value)) {
    throw new ConfigError(
      'PIX_CERT_CLIENT',
      'is not base64',
      'Give the cert_client header value exactly as sent (base64 of the certificate public key), or use PIX_CERT_FILE.',
    );
  }
  return value;
}

/** Live only: the mock is plain http on this machine. Every TLS problem joins the others. */
function readTls(read: Reader, live: boolean): TlsConfig {
  if (!live) return NO_TLS;
  const passphrase = read.text('PIX_TLS_PASSPHRASE');
  // One that is too short is said once; the files are still checked with it.
  read.check(() => maskable('PIX_TLS_PASSPHRASE', passphrase ?? ''), '');
  const { tls, problems } = readTlsConfig((name) => read.text(name), passphrase);
  read.problems.push(...problems);
  return tls;
}

function readAmount(read: Reader): { amountText: string; amount: number } {
  const amountText = read.text('PIX_AMOUNT') ?? DEFAULT_AMOUNT;
  const amount = Number(amountText);
  if (!/^\d{1,10}(\.\d{1,2})?$/.test(amountText) || !(amount > 0)) {
    throw new ConfigError(
      'PIX_AMOUNT',
      `is '${amountText}'`,
      'Use a positive amount in BRL with at most two decimals, e.g. 0.01.',
    );
  }
  return { amountText, amount };
}

function readMaxTotal(read: Reader, fallback: number): number {
  const value = read.text('PIX_MAX_TOTAL');
  if (value === undefined) return fallback;
  if (!/^\d{1,10}(\.\d{1,2})?$/.test(value)) {
    throw new ConfigError(
      'PIX_MAX_TOTAL',
      `is '${value}'`,
      'Use an amount in BRL with at most two decimals, e.g. 1.00.',
    );
  }
  return Number(value);
}

function readPayee(read: Reader, required: boolean): Payee {
  if (!required && read.text('PIX_PAYEE_KEY_TYPE') === undefined) return MOCK_PAYEE;
  const why =
    'Withdrawals go only to your own payee: set PIX_PAYEE_KEY_TYPE, PIX_PAYEE_KEY, PIX_PAYEE_DOCUMENT and PIX_PAYEE_NAME.';
  const keyType = read.required('PIX_PAYEE_KEY_TYPE', why);
  const key = read.required('PIX_PAYEE_KEY', why);
  const document = read.required('PIX_PAYEE_DOCUMENT', why);
  const name = read.required('PIX_PAYEE_NAME', why);
  const kind = keyType === undefined ? undefined : keyKindOf(keyType);
  if (keyType !== undefined && kind === undefined) {
    read.report(
      'PIX_PAYEE_KEY_TYPE',
      `'${keyType}' is not a Pix key type the suite knows`,
      'Use CPF, CNPJ, PHONE, EMAIL or EVP, in the spelling your provider expects (e.g. cpf, email, random, aleatoria).',
    );
  }
  const problem = kind === undefined || key === undefined ? undefined : keyProblem(kind, key);
  if (problem !== undefined) {
    read.report(
      'PIX_PAYEE_KEY',
      `does not fit PIX_PAYEE_KEY_TYPE=${keyType ?? ''}`,
      `By the central bank's rules, ${problem}.`,
    );
  }
  if (document !== undefined && !isValidDocument(document)) {
    read.report(
      'PIX_PAYEE_DOCUMENT',
      'is not a valid CPF or CNPJ',
      'Give 11 digits (CPF) or 14 characters (CNPJ) with valid check digits, no punctuation.',
    );
  }
  return { keyType: keyType ?? '', key: key ?? '', document: document ?? '', name: name ?? '' };
}

function readWebhook(read: Reader, mode: Mode): WebhookSettings {
  const publicUrl = read.text('PIX_WEBHOOK_PUBLIC_URL');
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) {
    read.report(
      'PIX_WEBHOOK_PUBLIC_URL',
      `'${publicUrl}' is not a URL`,
      'Give the base address the provider can reach, e.g. https://hooks.example.com/pix.',
    );
  }
  const timeoutMs = read.integer('PIX_WEBHOOK_TIMEOUT_MS', mode === 'live' ? 15_000 : 3_000, 100, 120_000);
  return {
    host: read.text('PIX_WEBHOOK_HOST') ?? '127.0.0.1',
    port: read.integer('PIX_WEBHOOK_PORT', 0, 0, 65_535),
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    receiverUrl: read.text('PIX_WEBHOOK_RECEIVER_URL'),
    receiverToken: read.text('PIX_WEBHOOK_RECEIVER_TOKEN'),
    timeoutMs,
    graceMs: Math.min(1_000, Math.max(100, Math.round(timeoutMs / 20))),
  };
}

function readCodePrefix(read: Reader): string {
  const codePrefix = read.text('PIX_CODE_PREFIX') ?? 'pixsuite-';
  if (!/^[A-Za-z0-9_-]{0,24}$/.test(codePrefix)) {
    read.report('PIX_CODE_PREFIX', `is '${codePrefix}'`, 'Use at most 24 letters, digits, - or _.');
  }
  return codePrefix;
}

/** One line of plain text: the label heads every report, where a line break or a control would garble it. */
function readEnvironmentName(read: Reader): string | undefined {
  const name = read.text('PIX_ENV_NAME')?.trim();
  if (name === undefined || name === '') return undefined;
  if (name.length > 80 || /\p{Cc}/u.test(name)) {
    read.report(
      'PIX_ENV_NAME',
      'is not one short line',
      'Give a label of at most 80 characters, e.g. Provider X UAT.',
    );
  }
  return name;
}

function readTokenField(read: Reader): string {
  const tokenField = read.text('PIX_TOKEN_FIELD') ?? 'access_token';
  if (!/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/.test(tokenField)) {
    read.report(
      'PIX_TOKEN_FIELD',
      `is '${tokenField}'`,
      'Give a field name or a dotted path, e.g. access_token or data.token.',
    );
  }
  return tokenField;
}

function readSigningKeyFile(read: Reader): SigningKey | undefined {
  const path = read.text('PIX_SIGNING_KEY_FILE');
  return path === undefined ? undefined : collect(read.problems, () => readSigningKey(path));
}

/** Reads every variable; problems are collected in `read` as it goes, and ConfigErrors thrown join them. */
function readConfig(read: Reader, env: Env): Config {
  read.problems.push(...unknownVariables(env));
  checkTargetGiven(read);
  const allowInsecure = read.flag('PIX_ALLOW_INSECURE');
  // Live as soon as PIX_BASE_URL says so, even when it is malformed: its credentials are checked too.
  const mode: Mode = read.text('PIX_BASE_URL') === undefined ? 'mock' : 'live';
  const live = mode === 'live';
  const baseUrl = read.check(() => readBaseUrl(read, allowInsecure), undefined);
  const allowPayouts = read.flag('PIX_ALLOW_PAYOUTS');
  const why = 'Live mode (PIX_BASE_URL is set) needs the credentials issued in your client dashboard.';
  const credentials = live
    ? {
        clientId: read.required('PIX_CLIENT_ID', why) ?? '',
        clientSecret: read.check(
          () => maskable('PIX_CLIENT_SECRET', read.required('PIX_CLIENT_SECRET', why) ?? ''),
          '',
        ),
        certClient: read.check(
          () =>
            maskable(
              read.text('PIX_CERT_FILE') === undefined ? 'PIX_CERT_CLIENT' : 'PIX_CERT_FILE',
              readCertClient(read) ?? '',
            ),
          '',
        ),
      }
    : MOCK_CREDENTIALS;
  const { amountText, amount } = read.check(() => readAmount(read), {
    amountText: DEFAULT_AMOUNT,
    amount: 0,
  });
  const maxPayouts = read.integer('PIX_MAX_PAYOUTS', DEFAULT_MAX_PAYOUTS, 0, 10_000);
  return {
    environmentName: readEnvironmentName(read),
    mode,
    baseUrl,
    ...credentials,
    payee: readPayee(read, live && allowPayouts),
    amountText,
    amount,
    allowPayouts,
    allowInsecure,
    tls: readTls(read, live),
    tokenField: readTokenField(read),
    webhook: readWebhook(read, mode),
    reportDir: resolve(read.text('PIX_REPORT_DIR') ?? 'reports'),
    signingKey: readSigningKeyFile(read),
    strict: read.flag('PIX_STRICT'),
    requireComplete: read.flag('PIX_REQUIRE_COMPLETE'),
    maxPayouts,
    maxTotal: read.check(() => readMaxTotal(read, Math.round(maxPayouts * amount * 100) / 100), 0),
    codePrefix: readCodePrefix(read),
    requestTimeoutMs: read.integer('PIX_REQUEST_TIMEOUT_MS', 10_000, 100, 300_000),
    maxResponseBytes: read.integer(
      'PIX_MAX_RESPONSE_BYTES',
      DEFAULT_MAX_RESPONSE_BYTES,
      1_024,
      1_073_741_824,
    ),
    dryRun: read.flag('PIX_DRY_RUN'),
    baseline: read.text('PIX_BASELINE'),
    failOnDrift: read.flag('PIX_FAIL_ON_DRIFT'),
    seed: read.text('PIX_SEED') === undefined ? undefined : read.integer('PIX_SEED', 0, 0, 2 ** 32 - 1),
  };
}

/** Validates the whole configuration; throws one ConfigError carrying every problem found. */
export function loadConfig(rawEnv: Env = environmentWithDotEnv()): Config {
  const read = new Reader(rawEnv);
  const config = read.check(() => readConfig(read, rawEnv), undefined);
  read.throwIfAny();
  // check() returns its fallback only after recording a problem, which throwIfAny has just thrown.
  return config as Config;
}
