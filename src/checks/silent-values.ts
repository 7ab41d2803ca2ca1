/**
 * Silent-values family (§2.1, §8 "not shown"): bodies the document never rules on, a missing field
 * or a value no Pix could carry. The expectations come from public Pix rules (docs/pix-domain.md), so a
 * provider that accepts them earns a WARNING, never a failure.
 */
import type { Exchange } from '../evidence/exchange.ts';
import type { BodyField, SpecModel } from '../spec/spec.ts';
import type { BodyCase, BodyMutation } from './bodies.ts';
import { defineCheck } from './check.ts';
import { familyFile, type Family } from './family.ts';
import { slug } from './operation-names.ts';
import { judgeSilentRefusal } from './refusal.ts';

interface SilentCase {
  readonly id: string;
  readonly title: string;
  readonly clause: string;
  readonly mutation: BodyMutation;
  readonly why: string;
  readonly remedy: string;
}

function silentCase({ id, title, clause, mutation, why, remedy }: SilentCase): BodyCase {
  return {
    mutation,
    check: defineCheck<Exchange>(
      { id, title, clause, level: 'should', reason: why, remedy, needs: ['provider', 'payout'] },
      (exchange) => judgeSilentRefusal(why, exchange),
    ),
  };
}

function missingFieldCase(field: BodyField): BodyCase {
  return silentCase({
    id: `PAYMENT-BODY-MISSING-${slug(field.name)}`,
    title: `Refuses a withdrawal without ${field.name}`,
    clause: '§2.1 (not shown)',
    mutation: { kind: 'missing', field: field.name },
    why: `which fields are required is not shown (§2.1), but a withdrawal without ${field.name} leaves the provider to invent or ignore it`,
    remedy: `Refuse a withdrawal without ${field.name} with 400 rather than guessing a value, and publish which fields are required.`,
  });
}

/** Values the document never rules on; the expectations come from public Pix rules (docs/pix-domain.md). */
const SILENT_VALUES: readonly (Omit<SilentCase, 'mutation' | 'title'> & {
  readonly field: string;
  readonly value: unknown;
  readonly describe: string;
})[] = [
  {
    id: 'AMOUNT-ZERO',
    field: 'amount',
    value: 0,
    describe: 'an amount of 0',
    clause: '§8 (not shown)',
    why: 'a Pix moves at least 0.01 BRL',
    remedy: 'Refuse an amount below 0.01 with 400.',
  },
  {
    id: 'AMOUNT-NEGATIVE',
    field: 'amount',
    value: -0.01,
    describe: 'a negative amount',
    clause: '§8 (not shown)',
    why: 'a withdrawal of a negative amount is meaningless',
    remedy: 'Refuse a negative amount with 400.',
  },
  {
    id: 'AMOUNT-THREE-DECIMALS',
    field: 'amount',
    value: 0.011,
    describe: 'an amount with three decimals',
    clause: '§2.1 (not shown)',
    why: 'Pix amounts are in BRL with two decimals',
    remedy: 'Refuse an amount with more than two decimals with 400 instead of rounding it silently.',
  },
  {
    id: 'POSTBACK-NOT-URL',
    field: 'PostBackUrl',
    value: 'not a url',
    describe: 'a PostBackUrl that is not a URL',
    clause: '§2.1 (not shown), §6',
    why: 'the webhook (§6) cannot be posted to an address that is not one',
    remedy:
      'Refuse a PostBackUrl that is not an absolute http(s) URL with 400, so the client learns it now and not when no webhook comes.',
  },
  {
    id: 'KEY-TYPE-UNKNOWN',
    field: 'key_type',
    value: 'NOT_A_KEY_TYPE',
    describe: 'an unknown key_type',
    clause: '§2.1 (not shown)',
    why: 'the central bank knows five key types: CPF, CNPJ, PHONE, EMAIL and EVP',
    remedy:
      'Refuse a key_type outside the five of the key directory with 400, and publish the spellings you accept.',
  },
  {
    id: 'NAME-TOO-LONG',
    field: 'name',
    value: 'N'.repeat(300),
    describe: 'a 300-character name',
    clause: '§8 (not shown)',
    why: 'Pix messages carry names of at most 140 characters',
    remedy: 'Refuse a name longer than 140 characters with 400 instead of truncating it.',
  },
];

/** The cases of the family, one test each. */
export function silentValueCases(spec: SpecModel): BodyCase[] {
  return [
    ...spec.bodyFields.filter((f) => !f.mayBeOmitted).map(missingFieldCase),
    ...SILENT_VALUES.map(({ id, field, value, describe, ...rest }) =>
      silentCase({
        ...rest,
        id: `PAYMENT-BODY-${id}`,
        title: `Refuses a withdrawal with ${describe}`,
        mutation: { kind: 'set', field, value },
      }),
    ),
  ];
}

export const silentValuesFamily: Family = {
  name: 'silent values',
  file: familyFile(import.meta.url),
  checks: (spec) => silentValueCases(spec).map((c) => c.check),
  withdrawals: (spec) => silentValueCases(spec).length,
};
