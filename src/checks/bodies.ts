/**
 * Bodies family (§2.1, §4.2, §7): the withdraw request is a JSON object with the fields and types of
 * §2.1. A complete one is accepted; one that breaks a type, or is no JSON object at all, is a bad
 * request. The wrong-type cases are generated from the spec's WithdrawRequest.
 */
import { describeResponse, type Exchange } from '../evidence/exchange.ts';
import type { WithdrawBody } from '../spec/requests.ts';
import type { BodyField, SpecModel } from '../spec/spec.ts';
import { type Check, defineCheck, violation } from './check.ts';
import { familyFile, type Family } from './family.ts';
import { slug } from './operation-names.ts';
import { ambiguityOf, judgeRefusal, REFUSAL_RULES } from './refusal.ts';

/** How a valid body is made wrong: raw text instead, one field set to a value, or one field left out. */
export type BodyMutation =
  | { readonly kind: 'raw'; readonly body: string | undefined }
  | { readonly kind: 'set'; readonly field: string; readonly value: unknown }
  | { readonly kind: 'missing'; readonly field: string };

export interface BodyCase {
  readonly mutation: BodyMutation;
  readonly check: Check<Exchange>;
}

/** The text sent for a valid body under a mutation, or undefined for no body at all. */
export function applyBodyMutation(body: WithdrawBody, mutation: BodyMutation): string | undefined {
  switch (mutation.kind) {
    case 'raw':
      return mutation.body;
    case 'set':
      return JSON.stringify({ ...body, [mutation.field]: mutation.value });
    case 'missing':
      return JSON.stringify(
        Object.fromEntries(Object.entries(body).filter(([key]) => key !== mutation.field)),
      );
  }
}

export const paymentAccepted = defineCheck<Exchange>(
  {
    id: 'PAYMENT-ACCEPTED',
    title: 'Accepts a valid withdrawal with every credential and every field of §2.1',
    clause: '§4.2, §2.1, §5.2',
    level: 'must',
    reason:
      'A withdrawal with client_id, client_secret, accept, the Bearer token and a complete body gets status 200 (§4.2).',
    remedy:
      'Answer a complete withdrawal with valid credentials with status 200, the success status of §4.2 (not 201 or 202); if it is refused, the evidence says why.',
    needs: ['payout'],
  },
  (exchange) => {
    const { status } = exchange.response;
    if (status === 200) return [];
    // client_secret travels only on withdrawals, so the token request could not have caught a wrong one.
    const secret =
      status === 401 || status === 403
        ? ' (refused for its credentials with a token just issued: check PIX_CLIENT_SECRET first; if it is right, the provider refuses a withdrawal §4.2 allows)'
        : '';
    return [violation('must', `200${secret}`, describeResponse(exchange.response))];
  },
);

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
        ambiguous: ambiguityOf(rule),
        reason: `§2.1 gives ${field.name} the type ${field.type}; a body that breaks it is a bad request (§7), never accepted and never a server error.`,
        remedy: `Check that ${field.name} is a JSON ${field.type} and refuse the withdrawal with 400 when it is not, before anything is paid.`,
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
        ambiguous: ambiguityOf(REFUSAL_RULES.invalidBody),
        reason:
          'The request body is the withdraw request of §2.1, a JSON object (§4.2); anything else is a bad request.',
        remedy: `Parse the body as a JSON object and refuse ${describe} with 400, never with a 2xx or a server error.`,
        needs: ['payout'],
      },
      (exchange) => judgeRefusal(REFUSAL_RULES.invalidBody, exchange),
    ),
  };
}

/** The refusal cases of the family, one test each. */
export function bodyCases(spec: SpecModel): BodyCase[] {
  return [...spec.bodyFields.map(wrongTypeCase), ...MALFORMED_BODIES.map(malformedBodyCase)];
}

export const bodiesFamily: Family = {
  name: 'request bodies',
  file: familyFile(import.meta.url),
  checks: (spec) => [paymentAccepted, ...bodyCases(spec).map((c) => c.check)],
  /** One valid withdrawal, and one per refusal case. */
  withdrawals: (spec) => 1 + bodyCases(spec).length,
};
