/**
 * The sandbox's scenarios: two conforming profiles and the faults, each fault a deliberate break of
 * one rule on top of the reference profile. A fault declares the clause it breaks and the checks it
 * must trip; the fault matrix (selftest/slow/matrix.test.ts) runs the suite against every scenario and
 * holds each fault to its declaration, and every check to at least one fault.
 */
import {
  ANY_VALUE,
  type Behaviour,
  CHECKED,
  COMPARED,
  IGNORED_WHEN_MISSING,
  SERVER_ERROR_WHEN_MISSING,
  WITHDRAW_FIELD_TYPES,
  type WithdrawField,
} from './behaviour.ts';
import { TOKEN_LIFETIME_SECONDS } from './token-store.ts';

interface ScenarioBase {
  readonly name: string;
  readonly description: string;
  /** Suite variables a live run against this scenario needs besides credentials and payee. */
  readonly suiteEnv: Readonly<Record<string, string>>;
  readonly behaviour: Behaviour;
}

export interface ProfileScenario extends ScenarioBase {
  readonly kind: 'profile';
}

/** What a fault proves: the suite must give these checks this verdict (a fault may trip more). */
export interface FaultScenario extends ScenarioBase {
  readonly kind: 'fault';
  /** The rule the fault breaks: a clause of interface.md, `(not shown)` where the document is silent. */
  readonly clause: string;
  /**
   * FAILED for a broken rule, WARNING where the document is silent or ambiguous, OBSERVED where it
   * says "not shown" and the suite only records what happened.
   */
  readonly level: 'FAILED' | 'WARNING' | 'OBSERVED';
  /** The checks the suite must judge at `level` (none for OBSERVED). */
  readonly trips: readonly string[];
  /**
   * For OBSERVED: the observation the run must record. An object or array value is matched member by
   * member (the members it names, the elements it lists), so a value with times in it can be declared.
   */
  readonly observes?: { readonly topic: string; readonly value: unknown };
  /** The switches it changes: on top of the reference here, of any profile in a namespace. */
  readonly breaks: Partial<Behaviour>;
}

export type Scenario = ProfileScenario | FaultScenario;

const ALL_FIELDS_BUT_CHECK_CODE = (Object.keys(WITHDRAW_FIELD_TYPES) as WithdrawField[]).filter(
  (field) => field !== 'check_code',
);

/** The document read strictly wherever it is silent. */
const REFERENCE: Behaviour = {
  credentialRefusal: 403,
  malformedCert: 'bad-request',
  acceptHeader: 'enforce',
  tokenClientId: CHECKED,
  certClient: CHECKED,
  tokenReply: 'access_token',
  tokenUses: 'unlimited',
  tokenLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
  paymentClientId: CHECKED,
  clientSecret: CHECKED,
  authorization: 'bearer',
  tokenCompare: 'exact',
  unparsableBody: 'refuse',
  wrongTypes: 'refuse',
  bodyRefusal: 400,
  requiredFields: ALL_FIELDS_BUT_CHECK_CODE,
  misspeltFields: 'as-missing',
  callbackField: 'exact',
  valueRules: true,
  absoluteCallback: true,
  checkCodeDefault: true,
  duplicateCheck: 'as-asked',
  codeStore: 'atomic',
  codeMemoryMs: undefined,
  activeTokens: 'all',
  tokenDiesAfterSeconds: undefined,
  acceptedStatus: 200,
  acceptedReply: 'reference',
  errorsAsText: false,
  errorStackTraces: false,
  webhookPayload: 'reference',
  webhookSigned: true,
  webhookMethod: 'POST',
  webhookTarget: 'exact',
  webhookCopies: 1,
  webhookRetry: undefined,
  webhookStatuses: ['PAID'],
  webhookTiming: 'after-answer',
  webhookOnRefused: 'never',
  tokenForm: 'hex',
  withdrawalAnswer: 'whole',
  acceptedAnswer: 'as-decided',
  withdrawalId: 'fresh',
  webhookPaddingBytes: 0,
  webhookAmount: 'as-sent',
  rateLimit: undefined,
  settledCodeGap: undefined,
  answerDelayMs: 0,
  errorBody: 'error-message',
  compression: 'none',
  processingGapMs: undefined,
};

/** Also conforming: the silent parts read the other way a real provider might. */
const LENIENT: Behaviour = {
  ...REFERENCE,
  credentialRefusal: 401,
  acceptHeader: 'ignore',
  tokenReply: 'token',
  requiredFields: ['amount', 'key_pix', 'PostBackUrl'],
  checkCodeDefault: false,
  acceptedReply: 'lenient',
  webhookPayload: 'lenient',
  webhookSigned: false,
};

/**
 * A namespace's provider unless it names a profile: the reference, serving what the document leaves
 * open (fields it does not require, Pix value rules) so that a client learns it from the journal and
 * the client certification, not from a refusal that would stop its run; a misspelt field, a relative
 * PostBackUrl and a malformed cert_client are refused as the document's own rules.
 */
export const NAMESPACE_DEFAULT: ProfileScenario = {
  kind: 'profile',
  name: 'simulator',
  description:
    "a namespace's default: the reference, serving missing fields and Pix value rules (recorded in the journal), 403 for a cert_client that is not base64",
  suiteEnv: {},
  behaviour: {
    ...REFERENCE,
    requiredFields: [],
    valueRules: false,
    misspeltFields: 'refuse',
    malformedCert: 'as-wrong',
  },
};

type FaultSpec = Omit<FaultScenario, 'kind' | 'suiteEnv' | 'behaviour'> & {
  /** Variables the run needs to see the fault at all (a probe that is off by default). */
  readonly suiteEnv?: Readonly<Record<string, string>>;
};

function fault({ suiteEnv = {}, ...spec }: FaultSpec): FaultScenario {
  return { kind: 'fault', suiteEnv, behaviour: { ...REFERENCE, ...spec.breaks }, ...spec };
}

const FAULTS: readonly FaultScenario[] = [
  fault({
    name: 'token-fails-valid',
    clause: '§4.1',
    level: 'FAILED',
    description:
      'answers every valid token request with 500 (one refused with 401 or 403 stops the run as a configuration mistake, selftest/slow/run-truth.test.ts)',
    trips: ['TOKEN-ISSUED'],
    breaks: { tokenReply: 'server-error' },
  }),
  fault({
    name: 'token-not-json',
    clause: 'payloads',
    level: 'FAILED',
    description: 'returns the token as text/plain access_token=<token>',
    trips: ['RESPONSE-JSON', 'TOKEN-FIELD'],
    breaks: { tokenReply: 'text' },
  }),
  fault({
    name: 'token-missing-field',
    clause: '§4.1',
    level: 'FAILED',
    description: 'issues the token but answers {}',
    trips: ['TOKEN-FIELD'],
    breaks: { tokenReply: 'empty-object' },
  }),
  fault({
    name: 'token-body-not-object',
    clause: '§4.1, payloads',
    level: 'FAILED',
    description: 'answers ["<token>"]',
    trips: ['RESPONSE-SCHEMA', 'TOKEN-FIELD'],
    breaks: { tokenReply: 'array' },
  }),
  fault({
    name: 'token-single-use',
    clause: '§5.3',
    level: 'FAILED',
    description: 'a token stops working after the first withdrawal it authorises',
    trips: ['TOKEN-REUSE'],
    breaks: { tokenUses: 'once' },
  }),
  fault({
    name: 'token-short-lived',
    clause: '§5.3, §5 (not shown)',
    level: 'WARNING',
    description: 'issues tokens that expire after 3600 s (expires_in: 3600), before the 7200 s renewal',
    trips: ['TOKEN-LIFETIME-COVERS-RENEWAL'],
    breaks: { tokenLifetimeSeconds: 3600 },
  }),
  fault({
    name: 'payment-answer-cut-short',
    clause: '§7',
    level: 'FAILED',
    description:
      'answers every withdrawal with a body shorter than its Content-Length, then closes the connection',
    trips: ['RESPONSE-COMPLETE'],
    breaks: { withdrawalAnswer: 'cut-short' },
  }),
  fault({
    name: 'webhook-other-amount',
    clause: '§6 (not shown)',
    level: 'WARNING',
    description:
      'names the withdrawal by its code in the webhook, with an amount one real more than was sent',
    trips: ['WEBHOOK-MATCHES-WITHDRAWAL'],
    breaks: { webhookAmount: 'other' },
  }),
  fault({
    name: 'token-line-break',
    clause: '§5.2',
    level: 'FAILED',
    description: 'issues tokens with a line break inside, which no HTTP header can carry',
    trips: ['TOKEN-USABLE'],
    breaks: { tokenForm: 'line-break' },
  }),
  fault({
    name: 'token-huge',
    clause: '§5.2 (not shown)',
    level: 'WARNING',
    description: 'issues tokens of 30 KB, more than many servers take in a header',
    trips: ['TOKEN-SIZE'],
    breaks: { tokenForm: 'huge' },
  }),
  fault({
    name: 'token-ignores-client-id',
    clause: '§4.1, §5.4',
    level: 'FAILED',
    description: 'issues a token without client_id',
    trips: ['TOKEN-REFUSE-MISSING-CLIENT-ID'],
    breaks: { tokenClientId: IGNORED_WHEN_MISSING },
  }),
  fault({
    name: 'token-any-client-id',
    clause: '§5.4',
    level: 'FAILED',
    description: 'issues a token to an unknown client_id when the cert is right',
    trips: ['TOKEN-REFUSE-WRONG-CLIENT-ID'],
    breaks: { tokenClientId: ANY_VALUE },
  }),
  fault({
    name: 'token-ignores-cert',
    clause: '§4.1, §5.4',
    level: 'FAILED',
    description: 'issues a token without cert_client',
    trips: ['TOKEN-REFUSE-MISSING-CERT-CLIENT'],
    breaks: { certClient: IGNORED_WHEN_MISSING },
  }),
  fault({
    name: 'token-any-cert',
    clause: '§5.4',
    level: 'FAILED',
    description: 'issues a token for any cert_client value, base64 or not',
    trips: ['TOKEN-REFUSE-WRONG-CERT-CLIENT', 'TOKEN-REFUSE-MALFORMED-CERT-CLIENT'],
    breaks: { certClient: ANY_VALUE },
  }),
  fault({
    name: 'token-5xx-on-missing-credential',
    clause: '§5.4',
    level: 'FAILED',
    description: 'answers 500 when client_id or cert_client is missing',
    trips: ['TOKEN-REFUSE-MISSING-CLIENT-ID', 'TOKEN-REFUSE-MISSING-CERT-CLIENT'],
    breaks: { tokenClientId: SERVER_ERROR_WHEN_MISSING, certClient: SERVER_ERROR_WHEN_MISSING },
  }),
  fault({
    name: 'payment-ignores-client-id',
    clause: '§4.2, §5.4',
    level: 'FAILED',
    description: 'accepts a withdrawal without client_id',
    trips: ['PAYMENT-REFUSE-MISSING-CLIENT-ID'],
    breaks: { paymentClientId: IGNORED_WHEN_MISSING },
  }),
  fault({
    name: 'payment-any-client-id',
    clause: '§5.4',
    level: 'FAILED',
    description: 'accepts a withdrawal with an unknown client_id',
    trips: ['PAYMENT-REFUSE-WRONG-CLIENT-ID'],
    breaks: { paymentClientId: ANY_VALUE },
  }),
  fault({
    name: 'payment-ignores-secret',
    clause: '§4.2, §5.4',
    level: 'FAILED',
    description: 'accepts a withdrawal without client_secret',
    trips: ['PAYMENT-REFUSE-MISSING-CLIENT-SECRET'],
    breaks: { clientSecret: IGNORED_WHEN_MISSING },
  }),
  fault({
    name: 'payment-any-secret',
    clause: '§5.4',
    level: 'FAILED',
    description: 'accepts a withdrawal with a wrong client_secret',
    trips: ['PAYMENT-REFUSE-WRONG-CLIENT-SECRET'],
    breaks: { clientSecret: ANY_VALUE },
  }),
  fault({
    name: 'payment-ignores-authorization',
    clause: '§4.2, §5.2',
    level: 'FAILED',
    description: 'accepts a withdrawal without Authorization',
    trips: ['PAYMENT-REFUSE-MISSING-AUTHORIZATION'],
    breaks: { authorization: 'ignored-when-missing' },
  }),
  fault({
    name: 'payment-any-scheme',
    clause: '§5.2',
    level: 'FAILED',
    description: 'accepts the token under any scheme (Basic, Token, ...)',
    trips: ['PAYMENT-REFUSE-NOT-BEARER-AUTHORIZATION'],
    breaks: { authorization: 'any-scheme' },
  }),
  fault({
    name: 'payment-any-token',
    clause: '§5.2',
    level: 'FAILED',
    description: 'accepts any Bearer value',
    trips: ['PAYMENT-REFUSE-FORGED-AUTHORIZATION', 'PAYMENT-REFUSE-RANDOM-AUTHORIZATION'],
    breaks: { authorization: 'any-token' },
  }),
  fault({
    name: 'secret-prefix',
    clause: '§5.4',
    level: 'FAILED',
    description: 'takes a client_secret for the right one when either is a prefix of the other',
    trips: ['PAYMENT-REFUSE-WRONG-CLIENT-SECRET'],
    breaks: { clientSecret: COMPARED('prefix') },
  }),
  fault({
    name: 'client-id-any-case',
    clause: '§5.4',
    level: 'FAILED',
    description: 'compares client_id ignoring case, in both operations',
    trips: ['TOKEN-REFUSE-WRONG-CLIENT-ID', 'PAYMENT-REFUSE-WRONG-CLIENT-ID'],
    breaks: { tokenClientId: COMPARED('any-case'), paymentClientId: COMPARED('any-case') },
  }),
  fault({
    name: 'cert-first-72',
    clause: '§5.4',
    level: 'FAILED',
    description:
      "compares the first 72 characters of cert_client (bcrypt's limit), which every RSA key of the client's size shares",
    trips: ['TOKEN-REFUSE-WRONG-CERT-CLIENT'],
    breaks: { certClient: COMPARED('first-72') },
  }),
  fault({
    name: 'token-first-32',
    clause: '§5.2',
    level: 'FAILED',
    description: 'looks a bearer token up by its first 32 characters (a VARCHAR(32) column)',
    trips: ['PAYMENT-REFUSE-FORGED-AUTHORIZATION'],
    breaks: { tokenCompare: 'first-32' },
  }),
  fault({
    name: 'payment-status-201',
    clause: '§4.2, §7',
    level: 'FAILED',
    description: 'answers an accepted withdrawal with 201',
    trips: ['PAYMENT-ACCEPTED'],
    breaks: { acceptedStatus: 201 },
  }),
  fault({
    name: 'payment-not-json',
    clause: 'payloads',
    level: 'FAILED',
    description: 'answers an accepted withdrawal with a text/plain body',
    trips: ['RESPONSE-JSON'],
    breaks: { acceptedReply: 'text' },
  }),
  fault({
    name: 'errors-not-json',
    clause: 'payloads, §7',
    level: 'FAILED',
    description: 'answers every error with a text/plain body',
    trips: ['RESPONSE-JSON'],
    breaks: { errorsAsText: true },
  }),
  fault({
    name: 'error-stack-traces',
    clause: '§7 (not shown)',
    level: 'WARNING',
    description:
      "answers every error with its JSON body and the Node stack trace of the throw, the server's /srv/ paths in it",
    trips: ['RESPONSE-ERROR-NO-INTERNALS'],
    breaks: { errorStackTraces: true },
  }),
  fault({
    name: 'status-422',
    clause: '§7',
    level: 'FAILED',
    description: 'answers body validation errors with 422 instead of 400',
    trips: ['RESPONSE-STATUS-DOCUMENTED', 'PAYMENT-BODY-WRONG-TYPE-AMOUNT'],
    breaks: { bodyRefusal: 422 },
  }),
  fault({
    name: 'body-no-type-check',
    clause: '§2.1, §7',
    level: 'FAILED',
    description: 'accepts fields of the wrong JSON type',
    trips: [
      'PAYMENT-BODY-WRONG-TYPE-AMOUNT',
      'PAYMENT-BODY-WRONG-TYPE-CODE',
      'PAYMENT-BODY-WRONG-TYPE-NAME',
      'PAYMENT-BODY-WRONG-TYPE-KEY-TYPE',
      'PAYMENT-BODY-WRONG-TYPE-DOCUMENT',
      'PAYMENT-BODY-WRONG-TYPE-KEY-PIX',
      'PAYMENT-BODY-WRONG-TYPE-POSTBACKURL',
      'PAYMENT-BODY-WRONG-TYPE-CHECK-CODE',
    ],
    breaks: { wrongTypes: 'accept' },
  }),
  fault({
    name: 'body-5xx',
    clause: '§7',
    level: 'FAILED',
    description: 'answers 500 to a body that is not a JSON object or has a wrong-typed field',
    trips: [
      'PAYMENT-BODY-NOT-JSON',
      'PAYMENT-BODY-EMPTY',
      'PAYMENT-BODY-ARRAY',
      'PAYMENT-BODY-WRONG-TYPE-AMOUNT',
    ],
    breaks: { unparsableBody: 'server-error', wrongTypes: 'server-error' },
  }),
  fault({
    name: 'body-not-json-accepted',
    clause: '§4.2',
    level: 'FAILED',
    description: 'accepts a body that is not JSON, empty or an array',
    trips: ['PAYMENT-BODY-NOT-JSON', 'PAYMENT-BODY-EMPTY', 'PAYMENT-BODY-ARRAY'],
    breaks: { unparsableBody: 'accept' },
  }),
  fault({
    name: 'check-code-ignored',
    clause: '§2.1',
    level: 'FAILED',
    description: 'accepts a repeated code even with check_code true',
    trips: ['CHECK-CODE-TRUE-REFUSES-DUPLICATE'],
    breaks: { duplicateCheck: 'never' },
  }),
  fault({
    name: 'single-active-token',
    clause: '§5.3, §5 (not shown)',
    level: 'WARNING',
    description:
      'keeps one active token per client: issuing a token revokes every earlier one (the rest of the run still judges everything)',
    trips: ['TOKEN-SURVIVES-NEWER-TOKEN'],
    breaks: { activeTokens: 'newest' },
  }),
  fault({
    name: 'token-dies-early',
    clause: '§5.3, §5 (not shown)',
    level: 'WARNING',
    description:
      'states expires_in 7200 but refuses a token 4 s after it issued it; the lifetime probe (PIX_TOKEN_LIFETIME_PROBE_S=5) measures it',
    trips: ['TOKEN-LIFETIME-COVERS-RENEWAL'],
    breaks: { tokenDiesAfterSeconds: 4 },
    suiteEnv: { PIX_TOKEN_LIFETIME_PROBE_S: '5' },
  }),
  fault({
    name: 'duplicate-race',
    clause: '§2.1',
    level: 'FAILED',
    description:
      'checks check_code against its store, then writes the code a moment later: one after another a duplicate is refused, sent together every copy is accepted',
    trips: ['CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE'],
    breaks: { codeStore: 'check-then-write' },
  }),
  fault({
    name: 'duplicate-memory-expires',
    clause: '§2.1',
    level: 'FAILED',
    description:
      'remembers an accepted code for 2 s only (a cache with a time to live): a duplicate sent at once is refused, the same code later in the run is accepted and paid again',
    trips: ['CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE'],
    breaks: { codeMemoryMs: 2_000 },
  }),
  fault({
    name: 'check-code-always',
    clause: '§2.1',
    level: 'FAILED',
    description: 'refuses a repeated code even with check_code false',
    trips: ['CHECK-CODE-FALSE-ALLOWS-DUPLICATE'],
    breaks: { duplicateCheck: 'always' },
  }),
  fault({
    name: 'accept-5xx',
    clause: '§4.1, §4.2, §7',
    level: 'FAILED',
    description: 'answers 500 when Accept/accept is missing or not application/json',
    trips: [
      'TOKEN-ACCEPT-MISSING',
      'TOKEN-ACCEPT-NOT-JSON',
      'PAYMENT-ACCEPT-MISSING',
      'PAYMENT-ACCEPT-NOT-JSON',
    ],
    breaks: { acceptHeader: 'server-error' },
  }),
  fault({
    name: 'webhook-none',
    clause: '§4.2, §6',
    level: 'FAILED',
    description: 'never posts a webhook',
    trips: ['WEBHOOK-DELIVERED'],
    breaks: { webhookCopies: 0 },
  }),
  fault({
    name: 'webhook-wrong-path',
    clause: '§4.2, §6',
    level: 'FAILED',
    description: "posts the webhook to the PostBackUrl's origin + /webhook",
    trips: ['WEBHOOK-DELIVERED'],
    breaks: { webhookTarget: 'origin-webhook' },
  }),
  fault({
    name: 'webhook-drops-query',
    clause: '§4.2, §6',
    level: 'FAILED',
    description: "posts the webhook to the PostBackUrl's origin and path, its query string dropped",
    trips: ['WEBHOOK-DELIVERED'],
    breaks: { webhookTarget: 'without-query' },
  }),
  fault({
    name: 'webhook-lower-case-path',
    clause: '§4.2, §6',
    level: 'FAILED',
    description: 'posts the webhook to the PostBackUrl with its path folded to lower case, its query kept',
    trips: ['WEBHOOK-DELIVERED'],
    breaks: { webhookTarget: 'lower-case-path' },
  }),
  fault({
    name: 'webhook-decodes-query',
    clause: '§4.2, §6',
    level: 'FAILED',
    description: 'posts the webhook to the PostBackUrl with its query percent-decoded (a%2Fb becomes a/b)',
    trips: ['WEBHOOK-DELIVERED'],
    breaks: { webhookTarget: 'decoded-query' },
  }),
  fault({
    name: 'webhook-any-case-field',
    clause: '§2.1, §6',
    level: 'FAILED',
    description:
      'takes the callback address from postbackurl (any case) when PostBackUrl is absent, and posts there',
    trips: ['WEBHOOK-CALLBACK-FIELD-CASE-SENSITIVE'],
    breaks: { callbackField: 'any-case' },
  }),
  fault({
    name: 'webhook-get',
    clause: '§6',
    level: 'FAILED',
    description: 'sends the webhook with GET and no body',
    trips: ['WEBHOOK-POST'],
    breaks: { webhookMethod: 'GET' },
  }),
  fault({
    name: 'webhook-get-declared-body',
    clause: '§6',
    level: 'FAILED',
    description: 'sends the webhook with GET, declaring a content-length whose body it never sends',
    trips: ['WEBHOOK-POST'],
    breaks: { webhookMethod: 'GET-declared-body' },
  }),
  fault({
    name: 'webhook-not-json',
    clause: 'payloads, §6',
    level: 'FAILED',
    description: 'sends the webhook body status=PAID as text/plain',
    trips: ['WEBHOOK-JSON'],
    breaks: { webhookPayload: 'text' },
  }),
  fault({
    name: 'lax-body',
    clause: '§2.1 (not shown), §8 (not shown)',
    level: 'WARNING',
    description: 'accepts missing fields, amounts <= 0 or with 3 decimals, any PostBackUrl, key_type, name',
    trips: [
      'PAYMENT-BODY-MISSING-AMOUNT',
      'PAYMENT-BODY-MISSING-CODE',
      'PAYMENT-BODY-MISSING-NAME',
      'PAYMENT-BODY-MISSING-KEY-TYPE',
      'PAYMENT-BODY-MISSING-DOCUMENT',
      'PAYMENT-BODY-MISSING-KEY-PIX',
      'PAYMENT-BODY-MISSING-POSTBACKURL',
      'PAYMENT-BODY-AMOUNT-ZERO',
      'PAYMENT-BODY-AMOUNT-NEGATIVE',
      'PAYMENT-BODY-AMOUNT-THREE-DECIMALS',
      'PAYMENT-BODY-POSTBACK-NOT-URL',
      'PAYMENT-BODY-KEY-TYPE-UNKNOWN',
      'PAYMENT-BODY-NAME-TOO-LONG',
    ],
    breaks: { requiredFields: [], valueRules: false, absoluteCallback: false },
  }),
  fault({
    name: 'webhook-anonymous',
    clause: '§6 (not shown)',
    level: 'WARNING',
    description: 'posts {"event":"withdrawal.paid","status":"PAID"} with no code or id',
    trips: ['WEBHOOK-REFERS-TO-WITHDRAWAL'],
    breaks: { webhookPayload: 'anonymous' },
  }),
  fault({
    name: 'webhook-on-refused',
    clause: '§4.2, §6 (not shown)',
    level: 'WARNING',
    description: 'also posts a webhook for refused withdrawals with a loopback PostBackUrl',
    trips: ['WEBHOOK-NONE-FOR-REFUSED'],
    breaks: { webhookOnRefused: 'always' },
  }),
  fault({
    name: 'webhook-on-bad-request',
    clause: '§4.2, §6 (not shown)',
    level: 'WARNING',
    description: 'posts a REJECTED webhook for each withdrawal it refuses with 400 (bodies, duplicate codes)',
    trips: ['WEBHOOK-NONE-FOR-REFUSED'],
    breaks: { webhookOnRefused: 'bad-request' },
  }),
  fault({
    name: 'payment-fails-valid',
    clause: '§4.2, §7',
    level: 'FAILED',
    description:
      'answers 500 to every withdrawal it would accept, and does not enforce accept, so a withdrawal without it is a valid one too (one finding: PAYMENT-ACCEPTED)',
    trips: ['PAYMENT-ACCEPTED'],
    breaks: { acceptedAnswer: 'server-error', acceptHeader: 'ignore' },
  }),
  fault({
    name: 'duplicate-race-rate-limited',
    clause: '§2.1',
    level: 'FAILED',
    description:
      'checks check_code and writes the code a moment later, and answers 429 past 6 requests a second: the race still fits what the run saw it take in a second, so its copies arrive together',
    trips: ['CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE'],
    breaks: { codeStore: 'check-then-write', rateLimit: { perSecond: 6, retryAfterSeconds: 1 } },
  }),
  fault({
    name: 'quota-every-third',
    clause: '§8 (not shown)',
    level: 'OBSERVED',
    description:
      'answers every third request 429 with Retry-After: 1, whatever the pace: the run slows to its floor, spends its wait budget (20 s with PIX_MAX_RETRY_AFTER_S=5) and ends INCOMPLETE, never ERROR (PIX_REQUIRE_COMPLETE=0: exit 0)',
    trips: [],
    observes: { topic: 'rate-limit.createToken', value: [{ status: 429 }] },
    suiteEnv: { PIX_MAX_RETRY_AFTER_S: '5', PIX_REQUIRE_COMPLETE: '0' },
    breaks: { rateLimit: { everyNth: 3, retryAfterSeconds: 1 } },
  }),
  fault({
    name: 'webhook-duplicate',
    clause: '§6 (not shown)',
    level: 'OBSERVED',
    description: 'posts every webhook twice',
    trips: [],
    observes: { topic: 'webhook.deliveries', value: 2 },
    breaks: { webhookCopies: 2 },
  }),
  fault({
    name: 'webhook-statuses',
    clause: '§6 (not shown)',
    level: 'OBSERVED',
    description:
      'posts a PROCESSING webhook and then a PAID one for each withdrawal, both before answering it',
    trips: [],
    observes: {
      topic: 'webhook.statuses',
      value: [{ statuses: ['PROCESSING'] }, { statuses: ['PAID'] }],
    },
    breaks: { webhookStatuses: ['PROCESSING', 'PAID'], webhookTiming: 'before-answer' },
  }),
  fault({
    name: 'webhook-no-retry',
    clause: '§6 (not shown)',
    level: 'OBSERVED',
    description:
      'never sends a webhook again, not even one the receiver answered 503 (the retry probe on, waiting 2 s)',
    trips: [],
    observes: { topic: 'webhook.retry', value: { retried: false, attempts: 1 } },
    suiteEnv: { PIX_WEBHOOK_RETRY_WAIT_S: '2' },
    breaks: { webhookRetry: undefined },
  }),
  fault({
    name: 'webhook-retry-storm',
    clause: '§6 (retries: not shown)',
    level: 'WARNING',
    description:
      'sends a webhook answered other than 2xx again 20 ms later, 30 attempts at most (the retry probe on, waiting 2 s, refuses the first)',
    trips: ['WEBHOOK-RETRY-PACE'],
    suiteEnv: { PIX_WEBHOOK_RETRY_WAIT_S: '2' },
    breaks: { webhookRetry: { delayMs: 20, attempts: 30 } },
  }),
  fault({
    name: 'duplicate-forgotten-once-settled',
    clause: '§2.1',
    level: 'FAILED',
    description:
      "settles a withdrawal 1 s after accepting it (its webhook goes out then) and checks a code against the withdrawals still processing and an archive that a settled one reaches 3 s later: a duplicate sent at once or at the run's end is refused, the same code right after its webhook is accepted and paid again",
    trips: ['CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE'],
    // The webhook comes 1 s late: a longer wait for it than the matrix's 1.5 s keeps load from missing it.
    suiteEnv: { PIX_WEBHOOK_TIMEOUT_MS: '5000' },
    breaks: { settledCodeGap: { settleMs: 1_000, archivedAfterMs: 3_000 } },
  }),
  fault({
    name: 'secret-trimmed',
    clause: '§5.4',
    level: 'WARNING',
    description:
      'trims white space off client_id and client_secret before comparing them (value.trim(), which removes a no-break space too), in both operations',
    trips: [
      'TOKEN-REFUSE-WRONG-CLIENT-ID',
      'PAYMENT-REFUSE-WRONG-CLIENT-ID',
      'PAYMENT-REFUSE-WRONG-CLIENT-SECRET',
    ],
    breaks: {
      tokenClientId: COMPARED('trimmed'),
      paymentClientId: COMPARED('trimmed'),
      clientSecret: COMPARED('trimmed'),
    },
  }),
];

export const SCENARIOS: readonly Scenario[] = [
  {
    kind: 'profile',
    name: 'reference',
    description: 'the document read strictly where it is silent (the default without /s/<scenario>)',
    suiteEnv: {},
    behaviour: REFERENCE,
  },
  {
    kind: 'profile',
    name: 'lenient',
    description: '401 for credentials, Accept not enforced, {token, expiresIn}, few required fields',
    suiteEnv: { PIX_TOKEN_FIELD: 'token' },
    behaviour: LENIENT,
  },
  {
    kind: 'profile',
    name: 'retrying',
    description:
      'sends a webhook answered other than 2xx again 1 s later, 3 attempts at most; run with the retry probe on (3 s)',
    suiteEnv: { PIX_WEBHOOK_RETRY_WAIT_S: '3' },
    behaviour: { ...REFERENCE, webhookRetry: { delayMs: 1_000, attempts: 3 } },
  },
  ...FAULTS,
];

/**
 * What real environments do to a whole run, not to one rule: each conforms to the document, so none
 * is a fault of the matrix; selftest/slow/run-truth.test.ts holds the suite to the story it must tell
 * (complete and no FAILED, a ledger that says what was paid, a finding where the document is broken).
 */
export interface RunScenario extends ScenarioBase {
  readonly kind: 'run';
}

function run(name: string, description: string, changes: Partial<Behaviour>): RunScenario {
  return { kind: 'run', name, description, suiteEnv: {}, behaviour: { ...REFERENCE, ...changes } };
}

export const RUN_SCENARIOS: readonly RunScenario[] = [
  run('rate-limited', 'answers 429 with Retry-After: 1 past 4 requests a second', {
    rateLimit: { perSecond: 4, retryAfterSeconds: 1 },
  }),
  run('paid-behind-504', 'pays accepted withdrawals (PAID webhook) but answers them 504', {
    acceptedAnswer: 'gateway-timeout',
  }),
  run('webhook-large', 'pays with a valid JSON webhook of about 728 KB', { webhookPaddingBytes: 728 * 1024 }),
  run('id-status', 'gives withdrawals the id "status" and names none in the webhook {"status":"PAID"}', {
    withdrawalId: 'status',
    webhookPayload: 'anonymous',
  }),
  run('rate-limited-6', 'answers 429 with Retry-After: 1 past 6 requests a second', {
    rateLimit: { perSecond: 6, retryAfterSeconds: 1 },
  }),
];

export const DEFAULT_SCENARIO = 'reference';

export function findScenario(name: string): Scenario | RunScenario | undefined {
  return [...SCENARIOS, ...RUN_SCENARIOS].find((scenario) => scenario.name === name);
}
