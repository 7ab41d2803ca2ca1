/**
 * The suite's public configuration: the PIX_* variables. Everything is validated before any
 * request, and a problem stops the run with one message naming the variable and what to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { keyKindOf, keyProblem, isValidDocument } from './pix/keys.ts';

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
  readonly timeoutMs: number;
  /** How long the suite keeps listening after the first delivery, to see duplicates. */
  readonly graceMs: number;
}

export interface Config {
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
  readonly tokenField: string;
  readonly webhook: WebhookSettings;
  readonly reportDir: string;
  readonly strict: boolean;
  readonly maxPayouts: number;
  readonly maxTotal: number;
  readonly codePrefix: string;
  readonly requestTimeoutMs: number;
  readonly dryRun: boolean;
  readonly baseline: string | undefined;
  readonly failOnDrift: boolean;
  /** PIX_SEED: replays the invented values of an earlier run; undefined lets the run pick one. */
  readonly seed: number | undefined;
}

/** A configuration problem: the run stops with exit code 2 and this message. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
    fix: string,
  ) {
    super(`${variable}: ${problem}. ${fix}`);
    this.name = 'ConfigError';
  }
}

/** Every variable the suite reads; any other PIX_* variable is most likely a typo and stops the run. */
export const VARIABLES = [
  'PIX_BASE_URL',
  'PIX_CLIENT_ID',
  'PIX_CLIENT_SECRET',
  'PIX_CERT_CLIENT',
  'PIX_CERT_FILE',
  'PIX_PAYEE_KEY_TYPE',
  'PIX_PAYEE_KEY',
  'PIX_PAYEE_DOCUMENT',
  'PIX_PAYEE_NAME',
  'PIX_AMOUNT',
  'PIX_ALLOW_PAYOUTS',
  'PIX_ALLOW_INSECURE',
  'PIX_MAX_PAYOUTS',
  'PIX_MAX_TOTAL',
  'PIX_CODE_PREFIX',
  'PIX_TOKEN_FIELD',
  'PIX_WEBHOOK_HOST',
  'PIX_WEBHOOK_PORT',
  'PIX_WEBHOOK_PUBLIC_URL',
  'PIX_WEBHOOK_TIMEOUT_MS',
  'PIX_REQUEST_TIMEOUT_MS',
  'PIX_REPORT_DIR',
  'PIX_STRICT',
  'PIX_DRY_RUN',
  'PIX_BASELINE',
  'PIX_FAIL_ON_DRIFT',
  'PIX_MOCK_PORT',
  'PIX_SANDBOX_HOST',
  'PIX_SANDBOX_PORT',
  'PIX_SEED',
] as const;

/** Set by the suite itself for its worker processes; not part of the user's interface. */
export const INTERNAL_VARIABLES = ['PIX_MOCK_URL', 'PIX_RUN_ID', 'PIX_WEBHOOK_CONTROL_URL'] as const;

/** Defaults that let the complete plan run at the default amount (see plan.ts and the README). */
export const DEFAULT_MAX_PAYOUTS = 60;
export const DEFAULT_AMOUNT = '0.01';

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
  return { ...parseEnv(readFileSync(dotEnvPath, 'utf8')), ...stripUndefined(env) };
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
  constructor(private readonly env: Env) {}

  text(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  flag(name: string): boolean {
    const value = this.text(name);
    if (value === undefined || value === '0') return false;
    if (value === '1') return true;
    throw new ConfigError(
      name,
      `is '${value}'`,
      `Set it to 1 to enable or 0 (or leave it unset) to disable.`,
    );
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.text(name);
    if (value === undefined) return fallback;
    const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      throw new ConfigError(name, `is '${value}'`, `Use a whole number from ${min} to ${max}.`);
    }
    return parsed;
  }

  required(name: string, why: string): string {
    const value = this.text(name);
    if (value === undefined) throw new ConfigError(name, 'is not set', why);
    return value;
  }
}

function checkUnknownVariables(env: Env): void {
  const known = new Set<string>([...VARIABLES, ...INTERNAL_VARIABLES]);
  for (const name of Object.keys(env)) {
    if (name.startsWith('PIX_') && !known.has(name)) {
      throw new ConfigError(
        name,
        'is not a variable of this suite',
        `Check the spelling; the variables are listed in .env.example (${VARIABLES.slice(0, 4).join(', ')}, …).`,
      );
    }
  }
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
  return url.toString().replace(/\/+$/, '');
}

function readCertClient(read: Reader): string {
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
  if (!isBase64(value)) {
    throw new ConfigError(
      'PIX_CERT_CLIENT',
      'is not base64',
      'Give the cert_client header value exactly as sent (base64 of the certificate public key), or use PIX_CERT_FILE.',
    );
  }
  return value;
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
  if (!required) {
    const keyType = read.text('PIX_PAYEE_KEY_TYPE');
    if (keyType === undefined) return MOCK_PAYEE;
  }
  const why =
    'Withdrawals go only to your own payee: set PIX_PAYEE_KEY_TYPE, PIX_PAYEE_KEY, PIX_PAYEE_DOCUMENT and PIX_PAYEE_NAME.';
  const keyType = read.required('PIX_PAYEE_KEY_TYPE', why);
  const key = read.required('PIX_PAYEE_KEY', why);
  const document = read.required('PIX_PAYEE_DOCUMENT', why);
  const name = read.required('PIX_PAYEE_NAME', why);
  const kind = keyKindOf(keyType);
  if (kind === undefined) {
    throw new ConfigError(
      'PIX_PAYEE_KEY_TYPE',
      `'${keyType}' is not a Pix key type the suite knows`,
      'Use CPF, CNPJ, PHONE, EMAIL or EVP, in the spelling your provider expects (e.g. cpf, email, random, aleatoria).',
    );
  }
  const problem = keyProblem(kind, key);
  if (problem !== undefined)
    throw new ConfigError(
      'PIX_PAYEE_KEY',
      `does not fit PIX_PAYEE_KEY_TYPE=${keyType}`,
      `By the central bank's rules, ${problem}.`,
    );
  if (!isValidDocument(document)) {
    throw new ConfigError(
      'PIX_PAYEE_DOCUMENT',
      'is not a valid CPF or CNPJ',
      'Give 11 digits (CPF) or 14 characters (CNPJ) with valid check digits, no punctuation.',
    );
  }
  return { keyType, key, document, name };
}

function readWebhook(read: Reader, mode: Mode): WebhookSettings {
  const publicUrl = read.text('PIX_WEBHOOK_PUBLIC_URL');
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) {
    throw new ConfigError(
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
    timeoutMs,
    graceMs: Math.min(1_000, Math.max(100, Math.round(timeoutMs / 20))),
  };
}

/** Validates the whole configuration; throws ConfigError on the first problem. */
export function loadConfig(rawEnv: Env = environmentWithDotEnv()): Config {
  checkUnknownVariables(rawEnv);
  const read = new Reader(rawEnv);
  const allowInsecure = read.flag('PIX_ALLOW_INSECURE');
  const baseUrl = readBaseUrl(read, allowInsecure);
  const mode: Mode = baseUrl === undefined ? 'mock' : 'live';
  const live = mode === 'live';
  const allowPayouts = read.flag('PIX_ALLOW_PAYOUTS');
  const why = 'Live mode (PIX_BASE_URL is set) needs the credentials issued in your client dashboard.';
  const credentials = live
    ? {
        clientId: read.required('PIX_CLIENT_ID', why),
        clientSecret: read.required('PIX_CLIENT_SECRET', why),
        certClient: readCertClient(read),
      }
    : MOCK_CREDENTIALS;
  const { amountText, amount } = readAmount(read);
  const maxPayouts = read.integer('PIX_MAX_PAYOUTS', DEFAULT_MAX_PAYOUTS, 0, 10_000);
  const codePrefix = read.text('PIX_CODE_PREFIX') ?? 'pixsuite-';
  if (!/^[A-Za-z0-9_-]{0,24}$/.test(codePrefix)) {
    throw new ConfigError('PIX_CODE_PREFIX', `is '${codePrefix}'`, 'Use at most 24 letters, digits, - or _.');
  }
  const tokenField = read.text('PIX_TOKEN_FIELD') ?? 'access_token';
  if (!/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/.test(tokenField)) {
    throw new ConfigError(
      'PIX_TOKEN_FIELD',
      `is '${tokenField}'`,
      'Give a field name or a dotted path, e.g. access_token or data.token.',
    );
  }
  return {
    mode,
    baseUrl,
    ...credentials,
    payee: readPayee(read, live && allowPayouts),
    amountText,
    amount,
    allowPayouts,
    allowInsecure,
    tokenField,
    webhook: readWebhook(read, mode),
    reportDir: resolve(read.text('PIX_REPORT_DIR') ?? 'reports'),
    strict: read.flag('PIX_STRICT'),
    maxPayouts,
    maxTotal: readMaxTotal(read, Math.round(maxPayouts * amount * 100) / 100),
    codePrefix,
    requestTimeoutMs: read.integer('PIX_REQUEST_TIMEOUT_MS', 10_000, 100, 300_000),
    dryRun: read.flag('PIX_DRY_RUN'),
    baseline: read.text('PIX_BASELINE'),
    failOnDrift: read.flag('PIX_FAIL_ON_DRIFT'),
    seed: read.text('PIX_SEED') === undefined ? undefined : read.integer('PIX_SEED', 0, 0, 2 ** 32 - 1),
  };
}
