/** Token family: the token operation's success path and the token's life (§4.1, §5.1, §5.3). */
import { describeResponse, type Exchange } from '../evidence/exchange.ts';
import { isJsonObject, readPath, stringFields, type JsonValue } from '../base/json.ts';
import { defineCheck, violation, type Violation } from './check.ts';
import { familyFile, type Family } from './family.ts';

export const tokenIssued = defineCheck<Exchange>(
  {
    id: 'TOKEN-ISSUED',
    title: 'Issues a token to a valid request',
    clause: '§4.1, §5.1',
    level: 'must',
    reason: "A request with Accept, client_id and the client's cert_client gets status 200 (§4.1).",
    remedy:
      'Answer POST /auth/token with 200 and the token when Accept, client_id and the registered cert_client are sent; check that the suite was given the credentials of a client enabled in this environment.',
  },
  (exchange) =>
    exchange.response.status === 200
      ? []
      : [violation('must', '200 with the access token', describeResponse(exchange.response))],
);

export interface TokenFieldInput {
  readonly exchange: Exchange;
  /** Where the integrator says the token is (PIX_TOKEN_FIELD). */
  readonly field: string;
}

export const tokenInField = defineCheck<TokenFieldInput>(
  {
    id: 'TOKEN-FIELD',
    title: 'The token response carries the access token at PIX_TOKEN_FIELD',
    clause: '§4.1, §2.3 (not shown)',
    level: 'must',
    reason:
      'The success body "carries the access token" (§4.1); its field name is not shown (§2.3), so the integrator names it in PIX_TOKEN_FIELD.',
    remedy:
      'Return the token as a non-empty string in a JSON object; if it is already there under another name, set PIX_TOKEN_FIELD to that field or dotted path.',
  },
  ({ exchange, field }) => {
    const token = readPath(exchange.response.json, field);
    if (typeof token === 'string' && token.trim() !== '') return [];
    const candidates = stringFields(exchange.response.json);
    const hint =
      candidates.length > 0
        ? ` (string fields present: ${candidates.join(', ')}; set PIX_TOKEN_FIELD if one of them is the token)`
        : '';
    return [
      violation('must', `a non-empty string at '${field}'`, `${describeResponse(exchange.response)}${hint}`),
    ];
  },
);

/** Characters no HTTP header value can carry (RFC 9110 §5.5): controls other than horizontal tab. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NOT_IN_A_HEADER = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Whether a token can be sent as `Authorization: Bearer <token>` at all. */
export const sendableInHeader = (token: string): boolean => !NOT_IN_A_HEADER.test(token);

const tokenAt = ({ exchange, field }: TokenFieldInput): string | undefined => {
  const token = readPath(exchange.response.json, field);
  return typeof token === 'string' ? token : undefined;
};

export const tokenUsable = defineCheck<TokenFieldInput>(
  {
    id: 'TOKEN-USABLE',
    title: 'The token can be sent in the Authorization header',
    clause: '§5.2',
    level: 'must',
    reason:
      'Every withdrawal sends "Authorization: Bearer <token>" (§5.2); a token with a line break or another control character cannot travel in an HTTP header.',
    remedy:
      'Issue tokens of visible ASCII characters, as OAuth 2.0 bearer tokens are (RFC 6750 b64token), with no line break inside or around them.',
  },
  (input) => {
    const token = tokenAt(input);
    return token === undefined || sendableInHeader(token)
      ? []
      : [
          violation(
            'must',
            'a token with no control character',
            `a token of ${token.length} characters with a control character (${JSON.stringify(token.match(NOT_IN_A_HEADER)?.[0] ?? '')})`,
          ),
        ];
  },
  (input) => (tokenAt(input) === undefined ? `no token at '${input.field}' (see TOKEN-FIELD)` : undefined),
);

/** Servers and proxies commonly refuse request headers over 8 KB (nginx's and Node's defaults are 8 and 16 KB). */
export const MAX_TOKEN_BYTES = 8 * 1024;

export const tokenSize = defineCheck<TokenFieldInput>(
  {
    id: 'TOKEN-SIZE',
    title: `The token fits in ${MAX_TOKEN_BYTES / 1024} KB`,
    clause: '§5.2 (not shown)',
    level: 'should',
    reason: `The token travels in a header on every withdrawal (§5.2) and its size is not shown; many servers and proxies refuse request headers over ${MAX_TOKEN_BYTES / 1024} KB, so a larger token breaks clients behind them.`,
    remedy: `Keep tokens under ${MAX_TOKEN_BYTES / 1024} KB: an opaque reference, or a JWT with fewer claims.`,
  },
  (input) => {
    const bytes = Buffer.byteLength(tokenAt(input) ?? '');
    return bytes <= MAX_TOKEN_BYTES
      ? []
      : [violation('should', `a token of at most ${MAX_TOKEN_BYTES} bytes`, `a token of ${bytes} bytes`)];
  },
  (input) => (tokenAt(input) === undefined ? `no token at '${input.field}' (see TOKEN-FIELD)` : undefined),
);

/** §5.3 and §8: the client renews its token every 7200 seconds. */
export const RENEWAL_INTERVAL_SECONDS = 7200;

/** Where token responses commonly state a lifetime in seconds (OAuth 2.0's expires_in and its camel case). */
const LIFETIME_FIELD = /^expires_?in$/i;

/** The lifetimes in seconds the body states, at its top level or one object down (`data.expires_in`). */
function statedLifetimes(body: JsonValue | undefined, depth = 0): number[] {
  if (!isJsonObject(body)) return [];
  return Object.entries(body).flatMap(([key, value]): number[] => {
    if (isJsonObject(value)) return depth === 0 ? statedLifetimes(value, depth + 1) : [];
    if (!LIFETIME_FIELD.test(key)) return [];
    const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof seconds === 'number' && Number.isFinite(seconds) ? [seconds] : [];
  });
}

export const tokenLifetime = defineCheck<Exchange | MeasuredLifetime>(
  {
    id: 'TOKEN-LIFETIME-COVERS-RENEWAL',
    title: `A token lifetime the token response states lasts at least the ${RENEWAL_INTERVAL_SECONDS}-second renewal interval`,
    clause: '§5.3, §8, §5 (not shown)',
    level: 'should',
    reason: `The client renews its token every ${RENEWAL_INTERVAL_SECONDS} s (§5.3, §8); how long the service accepts one is not shown (§5), but a token that expires sooner leaves a client that follows the document with a dead token.`,
    remedy: `Issue tokens valid for at least ${RENEWAL_INTERVAL_SECONDS} s, the interval at which the document tells clients to renew, and state that lifetime in expires_in.`,
  },
  (input) =>
    'ageSeconds' in input
      ? refusedBeforeRenewal(input)
      : statedLifetimes(input.response.json)
          .filter((seconds) => seconds < RENEWAL_INTERVAL_SECONDS)
          .map((seconds) =>
            violation(
              'should',
              `a token valid for at least ${RENEWAL_INTERVAL_SECONDS} s, or no stated lifetime`,
              `the response says the token expires in ${seconds} s`,
            ),
          ),
);

/**
 * What the answer to a withdrawal sent with a token tells of that token, read against the same
 * request sent with a forged token (how this provider refuses a token) and with a token just issued
 * (how it treats the request when the token is good). A provider that refuses the token just issued
 * as it refuses a forged one gives nothing to read (the credentials are wrong: PAYMENT-ACCEPTED).
 */
export type TokenFate = 'accepted' | 'refused' | 'unclear' | 'fresh-refused';

export interface TokenUseReading {
  /** The statuses that refuse the token: the forged token's answer, or 401 and 403. */
  readonly forged: readonly number[];
  /** The status a token just issued got. */
  readonly fresh: number;
}

export function tokenFate(status: number, { forged, fresh }: TokenUseReading): TokenFate {
  if (forged.includes(fresh)) return 'fresh-refused';
  if (status === fresh) return 'accepted';
  return forged.includes(status) ? 'refused' : 'unclear';
}

export interface SurvivalInput {
  /** How the first of two tokens issued in a row fared, used after the second was issued. */
  readonly fate: 'accepted' | 'refused';
  readonly answer: Exchange;
}

export const tokenSurvivesNewer = defineCheck<SurvivalInput>(
  {
    id: 'TOKEN-SURVIVES-NEWER-TOKEN',
    title: 'A token still works after a newer one is issued to the same client',
    clause: '§5.3, §5 (not shown)',
    level: 'should',
    reason: `The client renews every ${RENEWAL_INTERVAL_SECONDS} s (§5.3) and nothing in the document says a new token ends the earlier one; a provider that keeps one active token per client makes two instances of one application, or two CI shards, revoke each other's tokens.`,
    remedy:
      'Keep every token valid for its lifetime when a newer one is issued, or document one active token per client so that integrators share one token across instances.',
    needs: ['provider', 'payout'],
  },
  ({ fate, answer }) =>
    fate === 'accepted'
      ? []
      : [
          violation(
            'should',
            'the first token still accepted after a second was issued',
            `refused once a newer token was issued: ${describeResponse(answer.response)}; several instances or CI shards of one client would revoke each other's tokens`,
          ),
        ],
);

export interface MeasuredLifetime {
  /** How old the token was when it was used, in seconds. */
  readonly ageSeconds: number;
  /** What the token response stated, if anything. */
  readonly statedSeconds: number | undefined;
}

/** The lifetime a token response states, the shortest if it states several. */
export function statedLifetime(exchange: Exchange): number | undefined {
  const stated = statedLifetimes(exchange.response.json);
  return stated.length === 0 ? undefined : Math.min(...stated);
}

/** A token refused at an age: a finding when that is before the renewal interval. */
export function refusedBeforeRenewal({ ageSeconds, statedSeconds }: MeasuredLifetime): Violation[] {
  if (ageSeconds >= RENEWAL_INTERVAL_SECONDS) return [];
  const stated = statedSeconds === undefined ? 'no stated lifetime' : `expires_in ${statedSeconds}`;
  return [
    violation(
      'should',
      `a token accepted until the ${RENEWAL_INTERVAL_SECONDS}-second renewal interval`,
      `a token kept apart and used once was refused at ${ageSeconds} s (${stated})`,
    ),
  ];
}

export const TOKEN_REUSE_WITHDRAWALS = 3;

/** The token life test's withdrawals: with a forged token, with the first token, with the newest. */
export const TOKEN_LIFE_WITHDRAWALS = 3;

export const tokenReusable = defineCheck<readonly Exchange[]>(
  {
    id: 'TOKEN-REUSE',
    title: `One token authorises ${TOKEN_REUSE_WITHDRAWALS} withdrawals in a row`,
    clause: '§5.3, §5.2',
    level: 'must',
    reason:
      'The client renews its token every 7200 s (§5.3), so a token must serve every request in between, not just one.',
    remedy: `Keep an issued token valid for every request until the client renews it (${RENEWAL_INTERVAL_SECONDS} s), instead of spending it on its first use.`,
    needs: ['provider', 'payout'],
  },
  (exchanges) =>
    exchanges.flatMap((exchange, i) =>
      exchange.response.status === 200
        ? []
        : [
            violation(
              'must',
              `withdrawal ${i + 1} of ${exchanges.length} with the same token accepted (200)`,
              describeResponse(exchange.response),
            ),
          ],
    ),
  (exchanges) =>
    exchanges.length < 2
      ? `${exchanges.length} withdrawals answered with the token: no reuse to judge`
      : undefined,
);

export const tokenFamily: Family = {
  name: 'token',
  file: familyFile(import.meta.url),
  checks: () => [
    tokenIssued,
    tokenInField,
    tokenUsable,
    tokenSize,
    tokenLifetime,
    tokenReusable,
    tokenSurvivesNewer,
  ],
  /** Token reuse's, and the token life test's: a forged token, the first and the newest (and the aged one when probed). */
  withdrawals: (_spec, { tokenLifetimeProbe }) =>
    TOKEN_REUSE_WITHDRAWALS + TOKEN_LIFE_WITHDRAWALS + (tokenLifetimeProbe ? 1 : 0),
};
