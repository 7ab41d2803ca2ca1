/**
 * Negative cases generated from the OpenAPI document: one per credential header and way of being
 * wrong, per documented plain header, per body field and JSON type. Adding a header, a security
 * scheme or a body property to the spec adds its cases (and checks) with no test to write.
 */
import type { Check, Violation } from './checks/check.ts';
import { defineCheck } from './checks/check.ts';
import { REFUSAL_RULES, judgeRefusal, judgeSilentRefusal, type RefusalRule } from './checks/refusal.ts';
import type { Capability } from './checks/types.ts';
import { describeResponse, type Exchange } from './exchange.ts';
import type { BodyField, CredentialHeader, OperationId, OperationModel, SpecModel } from './spec.ts';

/** How a credential header is made wrong; `omit` removes it. */
export type CredentialVariant = 'missing' | 'wrong' | 'malformed' | 'not-bearer' | 'forged' | 'random';

export interface CredentialCase {
  readonly operation: OperationId;
  readonly credential: CredentialHeader;
  readonly variant: CredentialVariant;
  readonly check: Check<Exchange>;
}

export interface PlainHeaderCase {
  readonly operation: OperationId;
  readonly header: string;
  /** undefined: the header is left out. */
  readonly value: string | undefined;
  readonly check: Check<Exchange>;
}

export type BodyMutation =
  | { readonly kind: 'raw'; readonly body: string | undefined }
  | { readonly kind: 'set'; readonly field: string; readonly value: unknown }
  | { readonly kind: 'omit'; readonly field: string };

export interface BodyCase {
  readonly mutation: BodyMutation;
  readonly check: Check<Exchange>;
}

const OPERATION_PREFIX: Record<OperationId, string> = { createToken: 'TOKEN', createWithdraw: 'PAYMENT' };
const OPERATION_NAME: Record<OperationId, string> = {
  createToken: 'token request',
  createWithdraw: 'withdrawal',
};

/** Payment requests may be accepted by a lax provider, so every one of them is a possible payout. */
function needsFor(operation: OperationId, provider: boolean): Capability[] {
  return [
    ...(provider ? (['provider'] as const) : []),
    ...(operation === 'createWithdraw' ? (['payout'] as const) : []),
  ];
}

const slug = (text: string): string =>
  text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

interface VariantSpec {
  readonly variant: CredentialVariant;
  readonly describe: (header: string) => string;
  readonly rule: RefusalRule;
  /** Prism checks that a credential is present and, for Bearer, its scheme; never its value. */
  readonly mockCanJudge: boolean;
}

function variantsOf(credential: CredentialHeader): VariantSpec[] {
  if (credential.kind === 'token') {
    return [
      {
        variant: 'missing',
        describe: () => 'without Authorization',
        rule: REFUSAL_RULES.bearer,
        mockCanJudge: true,
      },
      {
        variant: 'not-bearer',
        describe: () => 'with the token under a scheme other than Bearer',
        rule: REFUSAL_RULES.bearer,
        mockCanJudge: true,
      },
      {
        variant: 'forged',
        describe: () => 'with a forged bearer token (the real one altered)',
        rule: REFUSAL_RULES.bearer,
        mockCanJudge: false,
      },
      {
        variant: 'random',
        describe: () => 'with a random bearer token',
        rule: REFUSAL_RULES.bearer,
        mockCanJudge: false,
      },
    ];
  }
  return [
    {
      variant: 'missing',
      describe: (h) => `without ${h}`,
      rule: REFUSAL_RULES.credentialMissing,
      mockCanJudge: true,
    },
    {
      variant: 'wrong',
      describe: (h) =>
        credential.kind === 'certificate'
          ? `with a ${h} that is valid base64 but not the client's`
          : `with a wrong ${h}`,
      rule: REFUSAL_RULES.credentialWrong,
      mockCanJudge: false,
    },
    ...(credential.base64
      ? [
          {
            variant: 'malformed' as const,
            describe: (h: string) => `with a ${h} that is not base64`,
            rule: REFUSAL_RULES.credentialMalformed,
            mockCanJudge: false,
          },
        ]
      : []),
  ];
}

export function credentialCases(spec: SpecModel, operation: OperationId): CredentialCase[] {
  const model = spec.operations[operation];
  return model.credentials.flatMap((credential) =>
    variantsOf(credential).map((v): CredentialCase => ({
      operation,
      credential,
      variant: v.variant,
      check: defineCheck<Exchange>(
        {
          id: `${OPERATION_PREFIX[operation]}-REFUSE-${slug(v.variant)}-${slug(credential.header)}`,
          title: `Refuses a ${OPERATION_NAME[operation]} ${v.describe(credential.header)}`,
          clause: `${model.clause}, ${credential.kind === 'token' ? '§5.2' : '§5.4'}`,
          level: 'must',
          reason: `${credential.header} is required (${model.clause}); a request ${v.describe(credential.header)} must not be served (${v.rule.name}: ${v.rule.passed.join('/')} passes, ${v.rule.warning.join('/')} warns).`,
          needs: needsFor(operation, !v.mockCanJudge),
        },
        (exchange) => judgeRefusal(v.rule, exchange),
      ),
    })),
  );
}

/** A missing or non-JSON Accept may be refused or tolerated; only a server error breaks the document. */
function judgePlainHeader(exchange: Exchange): Violation[] {
  if (exchange.response.status < 500) return [];
  return [
    {
      verdict: 'FAILED',
      expected: 'served or refused, not a server error',
      actual: describeResponse(exchange.response),
    },
  ];
}

export function plainHeaderCases(spec: SpecModel, operation: OperationId): PlainHeaderCase[] {
  const model: OperationModel = spec.operations[operation];
  return model.plainHeaders.flatMap(({ header, clause }) =>
    (
      [
        ['MISSING', undefined, `without ${header}`],
        ['NOT-JSON', 'text/plain', `with ${header}: text/plain`],
      ] as const
    ).map(([suffix, value, describe]): PlainHeaderCase => ({
      operation,
      header,
      value,
      check: defineCheck<Exchange>(
        {
          id: `${OPERATION_PREFIX[operation]}-${slug(header)}-${suffix}`,
          title: `Handles a ${OPERATION_NAME[operation]} ${describe} without a server error`,
          clause,
          level: 'must',
          reason: `${header} is required (${clause}) but the document does not say how its absence is answered: refusal (400/406) and tolerance are both recorded, a 5xx fails.`,
          needs: needsFor(operation, false),
        },
        judgePlainHeader,
      ),
    })),
  );
}

/** A value of a JSON type that no decoder coerces to the declared scalar type. */
const WRONG_TYPE_VALUE = { wrong_type: true } as const;

function wrongTypeCase(field: BodyField): BodyCase {
  const rule =
    field.name === 'key_pix' || field.name === 'key_type'
      ? REFUSAL_RULES.invalidKey
      : REFUSAL_RULES.invalidBody;
  return {
    mutation: { kind: 'set', field: field.name, value: WRONG_TYPE_VALUE },
    check: defineCheck<Exchange>(
      {
        id: `PAYMENT-BODY-WRONG-TYPE-${slug(field.name)}`,
        title: `Refuses a withdrawal whose ${field.name} is not a ${field.type}`,
        clause: `${field.clause}, §7`,
        level: 'must',
        reason: `§2.1 gives ${field.name} the type ${field.type}; a body that breaks it is a bad request (§7), never accepted and never a server error.`,
        needs: ['payout'],
      },
      (exchange) => judgeRefusal(rule, exchange),
    ),
  };
}

const MALFORMED_BODIES: readonly { suffix: string; body: string | undefined; describe: string }[] = [
  { suffix: 'NOT-JSON', body: 'amount=0.01&code=not-json', describe: 'a body that is not JSON' },
  { suffix: 'EMPTY', body: undefined, describe: 'an empty body' },
  { suffix: 'ARRAY', body: '[]', describe: 'a JSON array instead of an object' },
];

function malformedBodyCase({ suffix, body, describe }: (typeof MALFORMED_BODIES)[number]): BodyCase {
  return {
    mutation: { kind: 'raw', body },
    check: defineCheck<Exchange>(
      {
        id: `PAYMENT-BODY-${suffix}`,
        title: `Refuses a withdrawal with ${describe}`,
        clause: '§4.2, §2.1, §7',
        level: 'must',
        reason:
          'The request body is the withdraw request of §2.1, a JSON object (§4.2); anything else is a bad request.',
        needs: ['payout'],
      },
      (exchange) => judgeRefusal(REFUSAL_RULES.invalidBody, exchange),
    ),
  };
}

function silentCase(
  id: string,
  title: string,
  clause: string,
  mutation: BodyMutation,
  why: string,
): BodyCase {
  return {
    mutation,
    check: defineCheck<Exchange>(
      { id, title, clause, level: 'should', reason: why, needs: ['provider', 'payout'] },
      (exchange) => judgeSilentRefusal(why, exchange),
    ),
  };
}

function missingFieldCase(field: BodyField): BodyCase {
  return silentCase(
    `PAYMENT-BODY-MISSING-${slug(field.name)}`,
    `Refuses a withdrawal without ${field.name}`,
    '§2.1 (not shown)',
    { kind: 'omit', field: field.name },
    `which fields are required is not shown (§2.1), but a withdrawal without ${field.name} leaves the provider to invent or ignore it`,
  );
}

/** Values the document never rules on; the expectations come from public Pix rules (pix-domain.md). */
const SILENT_VALUES: readonly {
  id: string;
  field: string;
  value: unknown;
  title: string;
  clause: string;
  why: string;
}[] = [
  {
    id: 'AMOUNT-ZERO',
    field: 'amount',
    value: 0,
    title: 'an amount of 0',
    clause: '§8 (not shown)',
    why: 'a Pix moves at least 0.01 BRL',
  },
  {
    id: 'AMOUNT-NEGATIVE',
    field: 'amount',
    value: -0.01,
    title: 'a negative amount',
    clause: '§8 (not shown)',
    why: 'a withdrawal of a negative amount is meaningless',
  },
  {
    id: 'AMOUNT-THREE-DECIMALS',
    field: 'amount',
    value: 0.011,
    title: 'an amount with three decimals',
    clause: '§2.1 (not shown)',
    why: 'Pix amounts are in BRL with two decimals',
  },
  {
    id: 'POSTBACK-NOT-URL',
    field: 'PostBackUrl',
    value: 'not a url',
    title: 'a PostBackUrl that is not a URL',
    clause: '§2.1 (not shown), §6',
    why: 'the webhook (§6) cannot be posted to an address that is not one',
  },
  {
    id: 'KEY-TYPE-UNKNOWN',
    field: 'key_type',
    value: 'NOT_A_KEY_TYPE',
    title: 'an unknown key_type',
    clause: '§2.1 (not shown)',
    why: 'the central bank knows five key types: CPF, CNPJ, PHONE, EMAIL and EVP',
  },
  {
    id: 'NAME-TOO-LONG',
    field: 'name',
    value: 'N'.repeat(300),
    title: 'a 300-character name',
    clause: '§8 (not shown)',
    why: 'Pix messages carry names of at most 140 characters',
  },
];

export function bodyCases(spec: SpecModel): BodyCase[] {
  return [
    ...spec.bodyFields.map(wrongTypeCase),
    ...MALFORMED_BODIES.map(malformedBodyCase),
    ...spec.bodyFields.filter((f) => !f.mayBeOmitted).map(missingFieldCase),
    ...SILENT_VALUES.map((s) =>
      silentCase(
        `PAYMENT-BODY-${s.id}`,
        `Refuses a withdrawal with ${s.title}`,
        s.clause,
        { kind: 'set', field: s.field, value: s.value },
        s.why,
      ),
    ),
  ];
}
