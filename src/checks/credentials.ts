/**
 * Credentials family (§4.1, §4.2, §5.2, §5.4): one check per credential header of each operation and
 * way of being wrong, generated from the spec's security requirements, and the header mutations
 * that exercise them. A wrong value has the shape of the real one, so only its validity differs.
 */
import { isRateLimited, type Exchange } from '../evidence/exchange.ts';
import { isRegisteredSecret, registerSecret } from '../secrets/registry.ts';
import type { Inventor } from '../spec/invent.ts';
import { type Headers, withHeader, withoutHeader } from '../spec/requests.ts';
import type { CredentialHeader, OperationId, SpecModel } from '../spec/spec.ts';
import { type Check, defineCheck, type Violation } from './check.ts';
import { perOperationFamily } from './family.ts';
import { needsFor, OPERATION_NAME, OPERATION_PREFIX, slug, VALID_REQUEST_CHECK } from './operation-names.ts';
import {
  certificateNearMisses,
  NEAR_MISS_WORDS,
  type NearMiss,
  type NearMissValue,
  otherPublicKey,
  plainNearMisses,
  tokenNearMisses,
  WHITE_SPACE_NEAR_MISSES,
  whiteSpaceNearMisses,
} from './near-miss.ts';
import { isSuccess } from '../base/status.ts';
import { ambiguityOf, judgeRefusal, REFUSAL_RULES, type RefusalRule } from './refusal.ts';

/** What a `refusal.status.<check>` observation records, in a report's words. */
export const REFUSAL_NOTE = 'the status the environment refused the request with';

/** What a `near-miss.status.<check>` observation records: each near miss's status, by what it was. */
export const NEAR_MISS_NOTE = 'the status each near miss of the real value was answered with';

/** How a credential header is made wrong; `missing` removes it. */
export type CredentialVariant = 'missing' | 'wrong' | 'malformed' | 'not-bearer' | 'forged' | 'random';

/** One request of a credential case: the value it carried (its own, or a near miss of it) and the answer. */
export interface CredentialAnswer {
  readonly nearMiss?: NearMiss;
  readonly exchange: Exchange;
}

export interface CredentialCase {
  readonly operation: OperationId;
  readonly credential: CredentialHeader;
  readonly variant: CredentialVariant;
  /**
   * How the case's own value reads when it also sends the near misses of the real value (last
   * character changed, one short, one more, case changed; another real key for cert_client), judged
   * with it as one finding; undefined when it sends none.
   */
  readonly nearMissesBeside: string | undefined;
  /** The requests the case sends at most: its own and its near misses. */
  readonly requests: number;
  readonly check: Check<readonly CredentialAnswer[]>;
}

interface VariantSpec {
  readonly variant: CredentialVariant;
  readonly describe: (header: string) => string;
  readonly rule: RefusalRule;
  readonly remedy: (header: string) => string;
  /** Prism checks that a credential is present and, for Bearer, its scheme; never its value. */
  readonly mockCanJudge: boolean;
  /** The case also sends the real value's near misses; its own value then reads as this. */
  readonly nearMissesBeside?: string;
}

const BEARER_REMEDY =
  'Accept only Authorization: Bearer <token> with a token this service issued and still honours; answer anything else with 401 or 403 before the withdrawal is processed.';

/** client_id and client_secret, which a provider may trim before comparing; a token or a base64 value it would not. */
const trimmable = (credential: CredentialHeader): boolean =>
  (credential.kind === 'identifier' || credential.kind === 'secret') && !credential.base64;

function variantsOf(credential: CredentialHeader): VariantSpec[] {
  if (credential.kind === 'token') {
    const bearer = (variant: CredentialVariant, describe: string, mockCanJudge: boolean): VariantSpec => ({
      variant,
      describe: () => describe,
      rule: REFUSAL_RULES.bearer,
      remedy: () => BEARER_REMEDY,
      mockCanJudge,
    });
    return [
      bearer('missing', 'without Authorization', true),
      bearer('not-bearer', 'with the token under a scheme other than Bearer', true),
      {
        ...bearer('forged', 'with a forged bearer token (the real one altered)', false),
        nearMissesBeside: 'the forged token',
      },
      bearer('random', 'with a random bearer token', false),
    ];
  }
  return [
    {
      variant: 'missing',
      describe: (h) => `without ${h}`,
      rule: REFUSAL_RULES.credentialMissing,
      remedy: (h) =>
        `Refuse a request without ${h} with 403, the status §5.4 names for a key not supplied, before doing anything else.`,
      mockCanJudge: true,
    },
    {
      variant: 'wrong',
      describe: (h) =>
        credential.kind === 'certificate'
          ? `with a ${h} that is valid base64 but not the client's`
          : `with a wrong ${h}`,
      rule: REFUSAL_RULES.credentialWrong,
      remedy: (h) =>
        `Compare the whole of ${h}, byte for byte and case-sensitively${trimmable(credential) ? ', without trimming white space off it first,' : ''} with the value registered for the client and refuse a mismatch with 403 (§5.4: key invalid).`,
      mockCanJudge: false,
      nearMissesBeside: 'the wholly wrong value',
    },
    ...(credential.base64
      ? [
          {
            variant: 'malformed' as const,
            describe: (h: string) => `with a ${h} that is not base64`,
            rule: REFUSAL_RULES.credentialMalformed,
            remedy: (h: string) =>
              `Decode ${h} as base64 and refuse a value that is not base64 with 400 or 403.`,
            mockCanJudge: false,
          },
        ]
      : []),
  ];
}

/**
 * The near misses a credential's case sends besides its own value, at most: four edits, another key
 * for cert_client, white space around client_id and client_secret.
 */
function nearMissCount(credential: CredentialHeader): number {
  return 4 + (credential.base64 ? 1 : 0) + (trimmable(credential) ? WHITE_SPACE_NEAR_MISSES.size : 0);
}

/** How a case's near misses read in its reason: what each is. */
const nearMissReason = (credential: CredentialHeader): string =>
  `; nor one a prefix, truncated, case-insensitive or trimming compare takes for the real value (${[
    'the last character changed, one character short, one character more, the case changed (or, where case cannot matter, the first character)',
    ...(credential.base64 ? [NEAR_MISS_WORDS['other-key']] : []),
    ...(trimmable(credential)
      ? [
          'a no-break space (U+00A0) before or after it, which trimming removes: a WARNING alone, lenient rather than a wrong key taken; no ASCII space or tab, which HTTP strips around a header value itself (RFC 9110 §5.5)',
        ]
      : []),
  ].join('; ')})`;

/** Why an accepted white-space near miss is a WARNING, not a FAILED. */
const TRIMMED =
  ' (white space trimmed before the compare: lenient, but it takes a value that is not the registered one)';

/**
 * The case's answers judged as one finding: each refused as the rule says, or the finding names the
 * values that were not (`one character more: accepted: 200 …`). A white-space near miss accepted is a
 * WARNING, so a provider that only trims is not FAILED for it.
 */
function judgeAnswers(rule: RefusalRule, own: string, answers: readonly CredentialAnswer[]): Violation[] {
  const found = answers.flatMap(({ nearMiss, exchange }) =>
    judgeRefusal(rule, exchange).map((v): Violation => {
      const trimmed =
        nearMiss !== undefined &&
        WHITE_SPACE_NEAR_MISSES.has(nearMiss) &&
        isSuccess(exchange.response.status);
      return {
        ...v,
        verdict: trimmed ? 'WARNING' : v.verdict,
        actual: `${nearMiss === undefined ? own : NEAR_MISS_WORDS[nearMiss]}: ${v.actual}${trimmed ? TRIMMED : ''}`,
      };
    }),
  );
  const [first] = found;
  if (first === undefined) return [];
  return [
    {
      verdict: found.some((v) => v.verdict === 'FAILED') ? 'FAILED' : 'WARNING',
      expected: answers.length === 1 ? first.expected : `each of ${answers.length} values ${first.expected}`,
      actual: found.map((v) => v.actual).join('; '),
    },
  ];
}

export function credentialCases(spec: SpecModel, operation: OperationId): CredentialCase[] {
  const model = spec.operations[operation];
  return model.credentials.flatMap((credential) =>
    variantsOf(credential).map((v): CredentialCase => {
      const nearMisses = v.nearMissesBeside !== undefined;
      const describe = v.describe(credential.header);
      return {
        operation,
        credential,
        variant: v.variant,
        nearMissesBeside: v.nearMissesBeside,
        requests: 1 + (nearMisses ? nearMissCount(credential) : 0),
        check: defineCheck<readonly CredentialAnswer[]>(
          {
            id: `${OPERATION_PREFIX[operation]}-REFUSE-${slug(v.variant)}-${slug(credential.header)}`,
            title: `Refuses a ${OPERATION_NAME[operation]} ${describe}${nearMisses ? ', or a near miss of it' : ''}`,
            clause: `${model.clause}, ${credential.kind === 'token' ? '§5.2' : '§5.4'}`,
            level: 'must',
            ambiguous: ambiguityOf(v.rule),
            reason: `${credential.header} is required (${model.clause}); a request ${describe} must not be served (${v.rule.name}: ${v.rule.passed.join('/')} passes, ${v.rule.warning.join('/')} warns)${nearMisses ? nearMissReason(credential) : ''}.`,
            remedy: v.remedy(credential.header),
            needs: needsFor(operation, !v.mockCanJudge),
            variantOf: VALID_REQUEST_CHECK[operation],
          },
          (answers) => judgeAnswers(v.rule, v.nearMissesBeside ?? describe, answers),
          (answers) => (answers.length === 0 ? 'no request of the case was answered' : undefined),
        ),
      };
    }),
  );
}

/**
 * The answer that stands for a case's answers in the report: the first rate-limited one (the case
 * could not be judged), else the first the check found wrong, else the case's own.
 */
export function representativeAnswer(
  testCase: CredentialCase,
  answers: readonly CredentialAnswer[],
): Exchange | undefined {
  const limited = answers.find((a) => isRateLimited(a.exchange));
  const wrong = answers.find((a) => testCase.check.judge([a]).length > 0);
  return (limited ?? wrong ?? answers[0])?.exchange;
}

const ALPHANUMERIC = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789';
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * A value of the real one's shape that is not it: the same length, each letter or digit replaced from
 * the same alphabet (hex stays hex), every other character (-, ., =, line breaks) kept.
 */
function lookalike(
  value: string,
  invent: Inventor,
  alphabet = /^[0-9a-f.-]+$/.test(value) ? '0123456789abcdef' : ALPHANUMERIC,
): string {
  const candidate = invent.next((faker) =>
    Array.from(value, (c) => (/[A-Za-z0-9+/]/.test(c) ? faker.string.fromCharacters(alphabet) : c)).join(''),
  );
  return candidate === value ? `${candidate}x` : candidate;
}

/** A token that looks like the real one but is not: for a JWT only the signature is altered. */
export function forgeToken(token: string, invent: Inventor): string {
  const [header, payload, signature, ...more] = token.split('.');
  if (header !== undefined && payload !== undefined && signature !== undefined && more.length === 0) {
    return `${header}.${payload}.${lookalike(signature, invent)}`;
  }
  return lookalike(token, invent);
}

/**
 * Another client's certificate in the real one's shape: for a PEM, the same armour and line lengths
 * with another key inside; base64 of that, as the header carries it.
 */
function otherCertificate(certClient: string, invent: Inventor): string {
  const decoded = Buffer.from(certClient, 'base64').toString('latin1');
  const pem = /^(-----BEGIN [A-Z ]+-----\r?\n)([\s\S]*?)(\r?\n-----END [A-Z ]+-----\s*)$/.exec(decoded);
  if (pem === null) return lookalike(certClient, invent, BASE64_ALPHABET);
  const [, begin = '', body = '', end = ''] = pem;
  const other = body.replace(/[^=\r\n]+/g, (line) => lookalike(line, invent, BASE64_ALPHABET));
  return Buffer.from(`${begin}${other}${end}`, 'latin1').toString('base64');
}

/**
 * Valid headers with the case's credential made wrong. `token` is the real one, for the bearer
 * variants; `invent` draws the wrong values from the run's seed.
 */
export function applyCredentialCase(
  headers: Headers,
  testCase: CredentialCase,
  token: string | undefined,
  invent: Inventor,
): Headers {
  const { header } = testCase.credential;
  switch (testCase.variant) {
    case 'missing':
      return withoutHeader(headers, header);
    case 'wrong': {
      const current =
        Object.entries(headers).find(([k]) => k.toLowerCase() === header.toLowerCase())?.[1] ?? '';
      return withHeader(
        headers,
        header,
        testCase.credential.base64 ? otherCertificate(current, invent) : lookalike(current, invent),
      );
    }
    case 'malformed':
      return withHeader(headers, header, 'this is not base64!');
    case 'not-bearer':
      return withHeader(headers, header, `Token ${token ?? ''}`);
    case 'forged':
      return withHeader(headers, header, `Bearer ${forgeToken(token ?? '', invent)}`);
    case 'random':
      return withHeader(
        headers,
        header,
        `Bearer ${invent.next((faker) => faker.string.hexadecimal({ length: 48, casing: 'lower', prefix: '' }))}`,
      );
  }
}

/**
 * The case's near misses as headers to send: the real value (the token, or the header's own value)
 * one edit away, and for cert_client another real public key of the client's kind.
 */
export async function nearMissHeaders(
  headers: Headers,
  testCase: CredentialCase,
  token: string | undefined,
): Promise<{ readonly nearMiss: NearMiss; readonly headers: Headers }[]> {
  if (testCase.nearMissesBeside === undefined) return [];
  const { header, kind, base64 } = testCase.credential;
  const current = Object.entries(headers).find(([k]) => k.toLowerCase() === header.toLowerCase())?.[1] ?? '';
  const real = kind === 'token' ? (token ?? '') : current;
  const values: NearMissValue[] = await (async () => {
    if (kind === 'token') return tokenNearMisses(real);
    if (trimmable(testCase.credential)) return [...plainNearMisses(real), ...whiteSpaceNearMisses(real)];
    if (!base64) return plainNearMisses(real);
    const other = await otherPublicKey(real);
    return [
      ...(other === undefined ? [] : [{ variant: 'other-key' as const, value: other }]),
      ...certificateNearMisses(real),
    ];
  })();
  // One character from a secret is as good as the secret: masked wherever an answer echoes it.
  if (isRegisteredSecret(real)) for (const n of values) registerSecret(n.value);
  return values.map((n) => ({
    nearMiss: n.variant,
    headers: withHeader(headers, header, kind === 'token' ? `Bearer ${n.value}` : n.value),
  }));
}

export const credentialsFamily = perOperationFamily(
  'credentials',
  import.meta.url,
  credentialCases,
  (testCase) => testCase.requests,
);
