/**
 * Every check of the suite: the union of the families. docs/checks.md is this catalogue written
 * out (npm run docs:checks); checks generated from the spec appear as soon as the spec grows.
 */
import { loadSpec } from '../spec/spec.ts';
import { acceptFamily } from './accept.ts';
import { bodiesFamily } from './bodies.ts';
import { checkCodeFamily } from './check-code.ts';
import { credentialsFamily } from './credentials.ts';
import type { Family } from './family.ts';
import { responsesFamily } from './responses.ts';
import { silentValuesFamily } from './silent-values.ts';
import { tokenFamily } from './token.ts';
import { transportFamily } from './connection.ts';
import type { CheckDefinition } from './vocabulary.ts';
import { webhookFamily } from './webhook.ts';

export const FAMILIES: readonly Family[] = [
  tokenFamily,
  credentialsFamily,
  acceptFamily,
  bodiesFamily,
  silentValuesFamily,
  checkCodeFamily,
  responsesFamily,
  webhookFamily,
  transportFamily,
];

/** A check as data: what reports and listings need, without its judge. */
function definitionOf(check: CheckDefinition): CheckDefinition {
  const { id, title, clause, level, ambiguous, reason, remedy, needs, variantOf, subsumedBy } = check;
  return {
    id,
    title,
    clause,
    level,
    ...(ambiguous === undefined ? {} : { ambiguous }),
    reason,
    remedy,
    needs,
    ...(variantOf === undefined ? {} : { variantOf }),
    ...(subsumedBy === undefined ? {} : { subsumedBy }),
  };
}

let cached: readonly CheckDefinition[] | undefined;

export function catalogue(): readonly CheckDefinition[] {
  const spec = loadSpec();
  cached ??= FAMILIES.flatMap((family) => family.checks(spec).map(definitionOf));
  return cached;
}
