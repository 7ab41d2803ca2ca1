/**
 * What a scenario does, as plain switches. A profile sets all of them; a fault overrides a few on top
 * of the reference profile, so every behaviour has one code path and a fault is one small entry.
 */
import type { WebhookEvent } from './outcomes.ts';

/** The fields of the withdraw request (§2.1) and the JSON type the document gives each. */
export const WITHDRAW_FIELD_TYPES = {
  amount: 'number',
  code: 'string',
  name: 'string',
  key_type: 'string',
  document: 'string',
  key_pix: 'string',
  PostBackUrl: 'string',
  check_code: 'boolean',
} as const;

export type WithdrawField = keyof typeof WITHDRAW_FIELD_TYPES;

/**
 * How a presented credential is compared with the client's: wholly, or as lax providers do: a prefix
 * either way, the first 32 characters (a VARCHAR(32) column), the first 72 (bcrypt's limit), ignoring
 * case, or trimmed of white space first (JavaScript's trim(), which removes a no-break space too).
 */
export type Comparison = 'exact' | 'prefix' | 'first-32' | 'first-72' | 'any-case' | 'trimmed';

/** What happens to a request whose credential header is missing, or present but not the client's. */
export interface CredentialRule {
  readonly missing: 'refuse' | 'accept' | 'server-error';
  /** 'accept' also waives the base64 check of cert_client. */
  readonly wrong: 'refuse' | 'accept';
  readonly compare?: Comparison;
}

/** Whether a presented value passes for the client's under the comparison. */
export function sameCredential(presented: string, expected: string, compare: Comparison = 'exact'): boolean {
  switch (compare) {
    case 'exact':
      return presented === expected;
    case 'prefix':
      return presented !== '' && (presented.startsWith(expected) || expected.startsWith(presented));
    case 'first-32':
      return presented.slice(0, 32) === expected.slice(0, 32);
    case 'first-72':
      return presented.slice(0, 72) === expected.slice(0, 72);
    case 'any-case':
      return presented.toLowerCase() === expected.toLowerCase();
    case 'trimmed':
      return presented.trim() === expected;
  }
}

export const CHECKED: CredentialRule = { missing: 'refuse', wrong: 'refuse' };
/** Checked, with the comparison a lax provider makes. */
export const COMPARED = (compare: Comparison): CredentialRule => ({ ...CHECKED, compare });
export const IGNORED_WHEN_MISSING: CredentialRule = { missing: 'accept', wrong: 'refuse' };
export const ANY_VALUE: CredentialRule = { missing: 'refuse', wrong: 'accept' };
export const SERVER_ERROR_WHEN_MISSING: CredentialRule = { missing: 'server-error', wrong: 'refuse' };

export type RateLimit =
  | { readonly perSecond: number; readonly retryAfterSeconds: number }
  | { readonly everyNth: number; readonly retryAfterSeconds: number };

export interface Behaviour {
  /** Status of a refused client_id, cert_client or client_secret. */
  readonly credentialRefusal: 401 | 403;
  /** A cert_client that is not base64: 400 as malformed, or refused as a wrong one. */
  readonly malformedCert: 'bad-request' | 'as-wrong';
  /** A missing or non-JSON Accept (token) or accept (withdrawal): refused with 400, served, or a 500. */
  readonly acceptHeader: 'enforce' | 'ignore' | 'server-error';
  readonly tokenClientId: CredentialRule;
  readonly certClient: CredentialRule;
  /** The body of a successful token response; 'server-error' answers a valid request with 500 instead. */
  readonly tokenReply: 'access_token' | 'token' | 'text' | 'empty-object' | 'array' | 'server-error';
  readonly tokenUses: 'unlimited' | 'once';
  /** How long a token is honoured, as the token response states it in expires_in. */
  readonly tokenLifetimeSeconds: number;
  readonly paymentClientId: CredentialRule;
  readonly clientSecret: CredentialRule;
  readonly authorization: 'bearer' | 'ignored-when-missing' | 'any-scheme' | 'any-token';
  /** How a bearer token is looked up among those issued. */
  readonly tokenCompare: Comparison;
  /** A withdrawal body that is not JSON, empty, or not an object. */
  readonly unparsableBody: 'refuse' | 'accept' | 'server-error';
  /** A present field whose JSON type is not the one of §2.1. */
  readonly wrongTypes: 'refuse' | 'accept' | 'server-error';
  /** Status of a withdrawal refused for its body (duplicate codes excepted). */
  readonly bodyRefusal: 400 | 422;
  readonly requiredFields: readonly WithdrawField[];
  /** A field spelt in another case (Amount): refused whatever it is, or read as missing (refused if required). */
  readonly misspeltFields: 'refuse' | 'as-missing';
  /** 'any-case' also takes the callback address from postbackurl, POSTBACKURL, ... (§2.1 says names are case-sensitive). */
  readonly callbackField: 'exact' | 'any-case';
  /** Pix practice: positive amount with two decimals, known key_type, name of at most 140 characters. */
  readonly valueRules: boolean;
  /** PostBackUrl must be an absolute http(s) URL: where the webhook goes (§2.1, §6). */
  readonly absoluteCallback: boolean;
  readonly checkCodeDefault: boolean;
  /** 'as-asked' follows check_code; the others ignore it. */
  readonly duplicateCheck: 'as-asked' | 'never' | 'always';
  /**
   * 'check-then-write' records an accepted code only when it answers, a moment after its check: two
   * withdrawals with one code that arrive together both pass the check, one after another never.
   */
  readonly codeStore: 'atomic' | 'check-then-write';
  /** How long an accepted code is remembered for the duplicate check (a cache with a time to live); undefined: for ever. */
  readonly codeMemoryMs: number | undefined;
  /** 'newest' keeps one active token per client: issuing one revokes every earlier one. */
  readonly activeTokens: 'all' | 'newest';
  /** How long a token is really honoured, when less than the lifetime it states; undefined: as stated. */
  readonly tokenDiesAfterSeconds: number | undefined;
  readonly acceptedStatus: 200 | 201;
  readonly acceptedReply: 'reference' | 'lenient' | 'text';
  readonly errorsAsText: boolean;
  /** Every error body also carries the Node stack trace of the throw, as an unguarded error handler sends it. */
  readonly errorStackTraces: boolean;
  readonly webhookPayload: 'reference' | 'lenient' | 'anonymous' | 'text';
  /** Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature). */
  readonly webhookSigned: boolean;
  /** 'GET-declared-body' sends GET with the payload's content-length and never the body. */
  readonly webhookMethod: 'POST' | 'GET' | 'GET-declared-body';
  /**
   * Where the webhook goes: the exact PostBackUrl; its origin + /webhook; the PostBackUrl without its
   * query ('without-query'); or with its query decoded ('decoded-query'), as a provider that rebuilds
   * the URL from parsed parts does; or with its path in lower case ('lower-case-path'), as a router
   * that folds paths does.
   */
  readonly webhookTarget: 'exact' | 'origin-webhook' | 'without-query' | 'decoded-query' | 'lower-case-path';
  readonly webhookCopies: 0 | 1 | 2;
  /**
   * A delivery answered other than 2xx (or that failed) is sent again `delayMs` later, up to `attempts`
   * in all; undefined sends each once, as most sandboxes do (§6 leaves retries "not shown").
   */
  readonly webhookRetry: { readonly delayMs: number; readonly attempts: number } | undefined;
  /** The status of each webhook posted for one withdrawal, in order, as the reference payload reports it. */
  readonly webhookStatuses: readonly WebhookEvent[];
  /** 'before-answer' posts the webhooks (each awaited) before answering the withdrawal. */
  readonly webhookTiming: 'after-answer' | 'before-answer';
  /**
   * A webhook for a refused withdrawal: never; a payment's, whatever the refusal ('always'); or a
   * REJECTED one for a withdrawal refused with 400 for its body ('bad-request').
   */
  readonly webhookOnRefused: 'never' | 'always' | 'bad-request';
  /** How an issued token looks: 64 hex characters, one with a line break inside, or one of 30 KB. */
  readonly tokenForm: 'hex' | 'line-break' | 'huge';
  /** 'cut-short' answers every withdrawal with a body shorter than its Content-Length, then closes. */
  readonly withdrawalAnswer: 'whole' | 'cut-short';
  /**
   * 'gateway-timeout' takes an accepted withdrawal (and pays it: its webhook goes out) but answers 504;
   * 'server-error' answers 500 to every withdrawal it would accept, and makes none.
   */
  readonly acceptedAnswer: 'as-decided' | 'gateway-timeout' | 'server-error';
  /** The id a withdrawal is given: a fresh one, or the word "status" (which any status field contains). */
  readonly withdrawalId: 'fresh' | 'status';
  /** The amount the reference webhook reports: the withdrawal's, or one more than it. */
  readonly webhookAmount: 'as-sent' | 'other';
  /** Bytes of padding in the webhook payload, a valid JSON array of entries; 0 sends none. */
  readonly webhookPaddingBytes: number;
  /**
   * Requests answered 429 with Retry-After: those beyond `perSecond` in one second, or every `everyNth`
   * request whatever the pace (a quota no pacing satisfies); undefined limits nothing.
   */
  readonly rateLimit: RateLimit | undefined;
  /**
   * A duplicate check made against the withdrawals still processing and an archive of settled ones: a
   * withdrawal settles (its webhooks go out) `settleMs` after it is accepted and reaches the archive
   * `archivedAfterMs` later; in between its code is in neither. undefined: no such gap.
   */
  readonly settledCodeGap: { readonly settleMs: number; readonly archivedAfterMs: number } | undefined;
  /**
   * Every answer to a withdrawal is written this many ms after it arrived, the withdrawal processed
   * (code taken, webhooks planned) on arrival, as a provider behind a slow upstream does; 0: at once.
   */
  readonly answerDelayMs: number;
  /** Error bodies as {error, message}, or as RFC 9457 problem details (application/problem+json). */
  readonly errorBody: 'error-message' | 'problem';
  /** 'gzip' compresses every answer whose request's Accept-Encoding allows gzip. */
  readonly compression: 'none' | 'gzip';
  /**
   * A PROCESSING webhook first, and each webhook of the withdrawal's outcome this many ms later (scaled
   * as the outcome table's delays); undefined: the outcome's webhooks alone.
   */
  readonly processingGapMs: number | undefined;
}
