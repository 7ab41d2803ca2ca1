/**
 * The suite's public configuration: the PIX_* variables. Everything is validated before any
 * request, and the problems found stop the run, all at once, one line each naming the variable and
 * what to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { environmentWithDotEnv, type Env } from './dotenv.ts';
import { ConfigError } from './errors.ts';
import { Reader } from './reader.ts';
import { unknownVariables } from './suggest.ts';
import { VARIABLE_TABLE, type VariableName } from './variables.ts';
import { keyKindOf, keyProblem, isValidDocument } from './pix-keys.ts';
import { collect } from './pem.ts';
import { privateKeyForm, privateKeyFormOfValue, type PrivateKeyForm } from './private-key.ts';
import { type SigningKey } from '../secrets/signing.ts';
import { NO_TLS, readTlsConfig, type TlsConfig } from './tls-files.ts';
import { MIN_SECRET_LENGTH } from '../secrets/registry.ts';
import { readSigningKey } from './signing-key.ts';
import { runIdOfThisRun } from '../base/run-state.ts';

/** `{runId}` in PIX_REPORT_DIR: each run keeps its reports in a directory of its own (reports/{runId}). */
export const RUN_ID_PLACEHOLDER = '{runId}';

/** PIX_REPORT_DIR with the run's id in place of {runId}. */
export function reportDirOf(setting: string, runId: () => string = runIdOfThisRun): string {
  return setting.includes(RUN_ID_PLACEHOLDER) ? setting.replaceAll(RUN_ID_PLACEHOLDER, runId()) : setting;
}

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
  /** A remote receiver (pix-certify receiver) and its token, as given; checked before the run by webhook/setup.ts. */
  readonly receiverUrl: string | undefined;
  readonly receiverToken: string | undefined;
  readonly timeoutMs: number;
  /** How long the suite keeps listening after the first delivery, to see duplicates. */
  readonly graceMs: number;
  /**
   * PIX_WEBHOOK_RETRY_WAIT_S, in ms: the retry probe sends one more withdrawal, whose first delivery the
   * receiver answers 503, and waits this long after it for another; 0 sends no probe.
   */
  readonly retryWaitMs: number;
  /** Variables set that this configuration ignores (PIX_WEBHOOK_PORT beside a remote receiver): the plan names them. */
  readonly unused: readonly string[];
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
  /** PIX_CONCURRENCY: requests in flight at once, for the whole run. */
  readonly concurrency: number;
  /**
   * PIX_RACE_WIDTH: withdrawals with one code released together by the duplicate race; at most
   * PIX_CONCURRENCY and PIX_RATE_LIMIT, which it must stay within.
   */
  readonly raceWidth: number;
  /**
   * PIX_TOKEN_LIFETIME_PROBE_S: the age, in seconds, at which the token lifetime probe uses a token
   * kept apart; undefined: no probe.
   */
  readonly tokenLifetimeProbeS: number | undefined;
  /** PIX_RATE_LIMIT: requests per second, for the whole run; undefined limits nothing. */
  readonly rateLimit: number | undefined;
  /** PIX_MAX_RETRY_AFTER_S, in ms: the longest one wait after a 429 may be. */
  readonly maxRetryAfterMs: number;
  /** Bytes of a response body, counted after decompression, past which the exchange is a transport error. */
  readonly maxResponseBytes: number;
  readonly dryRun: boolean;
  readonly baseline: string | undefined;
  readonly failOnDrift: boolean;
  /** PIX_SEED: replays the invented values of an earlier run; undefined lets the run pick one. */
  readonly seed: number | undefined;
}

/** Defaults that let the complete plan run at the default amount (see plan.ts and the README). */
export const DEFAULT_MAX_PAYOUTS = 80;
export const DEFAULT_AMOUNT = '0.01';
/** PIX_CONCURRENCY when unset: requests in flight at once, for the whole run. */
export const DEFAULT_CONCURRENCY = 4;
/** The longest retry probe: an hour of waiting for a webhook the receiver refused. */
export const MAX_RETRY_WAIT_S = 3_600;
/** Far above any real answer of the two operations, far below what would strain memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

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

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(value: string): boolean {
  return value.length > 0 && BASE64.test(value);
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

/** Thrown before the value is registered as a secret or sent: a private key must not be read into anything. */
function refusePrivateKey(name: VariableName, found: PrivateKeyForm | undefined, what: string): void {
  if (found === undefined) return;
  throw new ConfigError(
    name,
    `${what} is ${found.form}, which must never leave this machine, and nothing was sent`,
    `cert_client carries the certificate's public key (§2.2, §4.1): extract it with \`${found.extract}\` and give that file.`,
  );
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
    const bytes = readFileSync(file);
    refusePrivateKey('PIX_CERT_FILE', privateKeyForm(bytes), `'${file}'`);
    return bytes.toString('base64');
  }
  const value = read.required(
    'PIX_CERT_CLIENT',
    'Set PIX_CERT_CLIENT to the base64 cert_client value, or PIX_CERT_FILE to the public key file.',
  );
  if (value !== undefined) refusePrivateKey('PIX_CERT_CLIENT', privateKeyFormOfValue(value), 'its value');
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

/** The duplicate race's default width: enough for a check-then-write store to let two through. */
const DEFAULT_RACE_WIDTH = 3;

/**
 * PIX_RACE_WIDTH, within what PIX_CONCURRENCY and PIX_RATE_LIMIT let be in flight together: unset,
 * it narrows to fit them; set, it must fit. A race of one is no race: where it runs (payouts
 * allowed), the limits must let two go together.
 */
function readRaceWidth(
  read: Reader,
  concurrency: number,
  rateLimit: number | undefined,
  races: boolean,
): number {
  const room = Math.min(concurrency, rateLimit ?? Infinity);
  const asked = read.text('PIX_RACE_WIDTH');
  if (asked === undefined) {
    if (room < 2 && races)
      throw new ConfigError(
        concurrency < 2 ? 'PIX_CONCURRENCY' : 'PIX_RATE_LIMIT',
        `is ${room}: the duplicate race (CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE) needs two withdrawals in flight together`,
        'Set it to 2 or more (the race sends PIX_RACE_WIDTH withdrawals, 3 by default, once per run), or run without PIX_ALLOW_PAYOUTS.',
      );
    return Math.max(2, Math.min(DEFAULT_RACE_WIDTH, room));
  }
  const width = read.integer('PIX_RACE_WIDTH', DEFAULT_RACE_WIDTH, 2, 10);
  if (width > room)
    throw new ConfigError(
      'PIX_RACE_WIDTH',
      `is ${width}, more than PIX_CONCURRENCY (${concurrency})${rateLimit === undefined ? '' : ` or PIX_RATE_LIMIT (${rateLimit})`} lets go together`,
      `Set PIX_RACE_WIDTH to ${room} or less, or raise the limit.`,
    );
  return width;
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
  const receiverUrl = read.text('PIX_WEBHOOK_RECEIVER_URL');
  const localOnly = ['PIX_WEBHOOK_PORT', 'PIX_WEBHOOK_HOST'] as const;
  return {
    unused: receiverUrl === undefined ? [] : localOnly.filter((name) => read.text(name) !== undefined),
    host: read.text('PIX_WEBHOOK_HOST') ?? '127.0.0.1',
    port: read.integer('PIX_WEBHOOK_PORT', 0, 0, 65_535),
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    receiverUrl,
    receiverToken: read.text('PIX_WEBHOOK_RECEIVER_TOKEN'),
    timeoutMs,
    graceMs: Math.min(1_000, Math.max(100, Math.round(timeoutMs / 20))),
    // An hour at most: providers retry from 30 s to hours, and a run waits through the whole probe.
    retryWaitMs: read.integer('PIX_WEBHOOK_RETRY_WAIT_S', 0, 0, MAX_RETRY_WAIT_S) * 1_000,
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
  const concurrency = read.integer('PIX_CONCURRENCY', DEFAULT_CONCURRENCY, 1, 64);
  const rateLimit =
    read.text('PIX_RATE_LIMIT') === undefined ? undefined : read.integer('PIX_RATE_LIMIT', 1, 1, 1_000);
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
    reportDir: resolve(reportDirOf(read.text('PIX_REPORT_DIR') ?? 'reports')),
    signingKey: readSigningKeyFile(read),
    strict: read.flag('PIX_STRICT'),
    // A live gate fails closed: unset, an INCOMPLETE live run exits 1; the mock quick start stays 0.
    requireComplete:
      read.text('PIX_REQUIRE_COMPLETE') === undefined ? live : read.flag('PIX_REQUIRE_COMPLETE'),
    maxPayouts,
    maxTotal: read.check(() => readMaxTotal(read, Math.round(maxPayouts * amount * 100) / 100), 0),
    codePrefix: readCodePrefix(read),
    requestTimeoutMs: read.integer('PIX_REQUEST_TIMEOUT_MS', 10_000, 100, 300_000),
    concurrency,
    rateLimit,
    tokenLifetimeProbeS:
      read.text('PIX_TOKEN_LIFETIME_PROBE_S') === undefined
        ? undefined
        : read.integer('PIX_TOKEN_LIFETIME_PROBE_S', 0, 1, 86_400),
    raceWidth: read.check(() => readRaceWidth(read, concurrency, rateLimit, live && allowPayouts), 2),
    maxRetryAfterMs: read.integer('PIX_MAX_RETRY_AFTER_S', 30, 0, 3_600) * 1_000,
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

let reading: { readonly config: Config } | { readonly error: unknown } | undefined;

/**
 * This process's configuration, read once: in the runner, playwright.config.ts, global setup and the
 * reporter share one reading, and in a worker its config and fixtures do. A configuration that
 * cannot run throws the same ConfigError each time it is asked for.
 */
export function configOfThisProcess(): Config {
  reading ??= (() => {
    try {
      return { config: loadConfig() };
    } catch (error) {
      return { error };
    }
  })();
  if ('error' in reading) throw reading.error;
  return reading.config;
}
