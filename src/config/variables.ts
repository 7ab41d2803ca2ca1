/** The suite's public variables, one row each: --help, .env.example and the unknown-name check come from here. */

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
  { name: 'PIX_CERT_FILE', purpose: 'or the public key file, which the suite base64-encodes (a private key in either stops the run; nothing is sent)', liveOnly: true },
  { name: 'PIX_PAYEE_KEY_TYPE', purpose: "your payee's key type: CPF, CNPJ, PHONE, EMAIL, EVP (provider's spelling)", liveOnly: true },
  { name: 'PIX_PAYEE_KEY', purpose: "your own payee's Pix key: every withdrawal goes there", liveOnly: true },
  { name: 'PIX_PAYEE_DOCUMENT', purpose: "your payee's CPF or CNPJ, no punctuation", liveOnly: true },
  { name: 'PIX_PAYEE_NAME', purpose: "your payee's name", liveOnly: true },
  { name: 'PIX_AMOUNT', purpose: 'amount of each withdrawal in BRL, at most two decimals', default: '0.01' },
  { name: 'PIX_ALLOW_PAYOUTS', purpose: '1 allows POST /pix/payment, which may move money', default: '0', liveOnly: true },
  { name: 'PIX_ALLOW_INSECURE', purpose: '1 allows plain http:// to another host; the report warns', default: '0', liveOnly: true },
  { name: 'PIX_MAX_PAYOUTS', purpose: 'the run refuses a plan that may make more payouts', default: '80' },
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
  { name: 'PIX_WEBHOOK_RETRY_WAIT_S', purpose: 'retry probe: one more withdrawal whose first webhook is answered 503; how long to wait for another', default: '0, no probe' },
  { name: 'PIX_WEBHOOK_RECEIVER_URL', purpose: 'a remote receiver (the receiver command): base of every PostBackUrl', default: "the suite's own receiver" },
  { name: 'PIX_WEBHOOK_RECEIVER_TOKEN', purpose: "that receiver's token (its PIX_RECEIVER_TOKEN), a secret" },
  { name: 'PIX_CONCURRENCY', purpose: 'requests in flight at once, for the whole run', default: '4' },
  { name: 'PIX_TOKEN_LIFETIME_PROBE_S', purpose: 'uses a token kept apart this many seconds after it was issued (1 to 86400); the run lasts that long', default: 'no probe' },
  { name: 'PIX_RACE_WIDTH', purpose: 'withdrawals with one code the duplicate race releases together (2 to 10)', default: '3, or what PIX_CONCURRENCY and PIX_RATE_LIMIT allow' },
  { name: 'PIX_RATE_LIMIT', purpose: 'requests per second, for the whole run, spaced (no burst)', default: 'unlimited' },
  { name: 'PIX_MAX_RETRY_AFTER_S', purpose: "longest wait a 429's Retry-After may ask; past it the run stops waiting. Four times it is the run's wait budget for a rate limit", default: '30' },
  { name: 'PIX_REQUEST_TIMEOUT_MS', purpose: 'bound on every request, and on the preflight', default: '10000' },
  { name: 'PIX_MAX_RESPONSE_BYTES', purpose: 'bound on every response body, in bytes after decompression', default: '4194304 (4 MiB)' },
  { name: 'PIX_REPORT_DIR', purpose: 'where the reports and the ledger are written; {runId} in it keeps every run apart (reports/{runId})', default: 'reports' },
  { name: 'PIX_SIGNING_KEY_FILE', purpose: 'a PEM private key (Ed25519, ECDSA, RSA; unencrypted) that signs the certification' },
  { name: 'PIX_STRICT', purpose: '1: a WARNING or an INCOMPLETE run fails too (exit 1)', default: '0' },
  { name: 'PIX_REQUIRE_COMPLETE', purpose: '1: an INCOMPLETE run fails (exit 1); 0: it exits 0', default: '1 live and client, 0 mock' },
  { name: 'PIX_DRY_RUN', purpose: '1: print the plan and the checks, send nothing (like --list)', default: '0' },
  { name: 'PIX_BASELINE', purpose: 'an earlier certification.json to compare the run with (like --baseline)' },
  { name: 'PIX_FAIL_ON_DRIFT', purpose: '1: a regression since the baseline fails the run (exit 1)', default: '0' },
  { name: 'PIX_SEED', purpose: 'replays the values an earlier run invented (its run.seed)', default: 'a new seed per run' },
  { name: 'PIX_MOCK_PORT', purpose: 'port of the mock command', default: '4010' },
  { name: 'PIX_SANDBOX_HOST', purpose: 'address of the sandbox command', default: '127.0.0.1' },
  { name: 'PIX_SANDBOX_PORT', purpose: 'port of the sandbox command', default: '4020' },
  { name: 'PIX_SANDBOX_TLS_CERT_FILE', purpose: 'the sandbox serves https with this certificate (PEM)', default: 'plain http' },
  { name: 'PIX_SANDBOX_TLS_KEY_FILE', purpose: 'and its private key (PEM)' },
  { name: 'PIX_SANDBOX_CLIENT_CA_FILE', purpose: 'the sandbox demands client certificates this CA signed (PEM)' },
  { name: 'PIX_SANDBOX_DELAY_MS', purpose: 'the sandbox answers every request this many ms late, as a far-away environment', default: '0' },
  { name: 'PIX_SANDBOX_CONTROL_TOKEN', purpose: "the sandbox's control API token (/_sim/), a secret; sandbox trigger sends it", default: 'a new one per start, printed' },
  { name: 'PIX_SANDBOX_WEBHOOK_HOSTS', purpose: 'host names besides loopback the sandbox posts webhooks to, comma-separated (compose services)', default: 'loopback only' },
  { name: 'PIX_SANDBOX_WEBHOOK_TIMEOUT_MS', purpose: 'how long a webhook handler has to answer the sandbox', default: '5000' },
  { name: 'PIX_SANDBOX_URL', purpose: 'the running sandbox pix-certify sandbox trigger calls', default: 'http://127.0.0.1:4020' },
  { name: 'PIX_CLIENT_TIMEOUT_S', purpose: 'pix-certify client: the command is stopped after this many seconds (like --timeout)', default: '600' },
  { name: 'PIX_CLIENT_WEBHOOK_WAIT_S', purpose: "pix-certify client: at most this long after the command ends for the simulator's webhooks to settle", default: '10' },
  { name: 'PIX_RECEIVER_HOST', purpose: 'address the receiver command listens on', default: '127.0.0.1' },
  { name: 'PIX_RECEIVER_PORT', purpose: 'port of the receiver command', default: '4030' },
  { name: 'PIX_RECEIVER_TOKEN', purpose: "the receiver's control API token, 32 characters or more (required)" },
  { name: 'PIX_RECEIVER_DATA_DIR', purpose: 'where the receiver persists deliveries', default: './receiver-data' },
  { name: 'PIX_RECEIVER_TLS_CERT_FILE', purpose: "the receiver's own TLS certificate (PEM)" },
  { name: 'PIX_RECEIVER_TLS_KEY_FILE', purpose: 'and its private key (PEM)' },
  { name: 'PIX_RECEIVER_CLIENT_CA_FILE', purpose: "CA of the provider's client certificates, recorded per webhook" },
  { name: 'PIX_RECEIVER_REQUIRE_CLIENT_CERT', purpose: '1: the receiver refuses webhooks without such a certificate', default: '0' },
] as const satisfies readonly VariableSpec[];

export type VariableName = (typeof VARIABLE_ROWS)[number]['name'];

/** Every variable the suite reads; any other PIX_* variable is most likely a typo and stops the run. */
export const VARIABLE_TABLE: readonly VariableSpec<VariableName>[] = VARIABLE_ROWS;
export const VARIABLES: readonly VariableName[] = VARIABLE_ROWS.map((v) => v.name);
