/**
 * Every check of the suite, on both sides of the contract: the provider's families, which certify
 * judges, and the families of an integrator's client and webhook handler, which pix-certify client
 * judges on the simulator's journal. docs/checks.md is this catalogue written out (npm run
 * docs:checks); checks generated from the spec appear as soon as the spec grows.
 */
import { loadSpec } from '../spec/spec.ts';
import { acceptFamily } from './accept.ts';
import { bodiesFamily } from './bodies.ts';
import { checkCodeFamily } from './check-code.ts';
import { clientFamily, type ClientCheck } from './client-requests.ts';
import { credentialsFamily } from './credentials.ts';
import { errorBodiesFamily } from './leaked-internals.ts';
import type { Family } from './family.ts';
import { handlerFamily } from './handler.ts';
import { responsesFamily } from './responses.ts';
import { silentValuesFamily } from './silent-values.ts';
import { tokenFamily } from './token.ts';
import { transportFamily } from './connection.ts';
import type { CheckDefinition } from './vocabulary.ts';
import { webhookFamily } from './webhook.ts';

/** Which side of the contract a check judges: a provider (certify), or an integrator (pix-certify client). */
export type Side = 'provider' | 'client';

/** The provider's families, whose tests the payout plan counts. */
export const FAMILIES: readonly Family[] = [
  tokenFamily,
  credentialsFamily,
  acceptFamily,
  bodiesFamily,
  silentValuesFamily,
  checkCodeFamily,
  responsesFamily,
  errorBodiesFamily,
  webhookFamily,
  transportFamily,
];

/** The integrator's families: what its client sends, and how its webhook handler answers. */
export const CLIENT_FAMILIES: readonly Family<ClientCheck>[] = [clientFamily, handlerFamily];

export function familiesOf(side: Side): readonly Family[] {
  return side === 'provider' ? FAMILIES : CLIENT_FAMILIES;
}

/**
 * The checks pix-certify client judges, with their judges: the client's and its handler's, or the
 * handler's alone (`--handler`, where no client runs).
 */
export function clientChecks(subject: 'client' | 'handler'): readonly ClientCheck[] {
  const spec = loadSpec();
  const families = subject === 'client' ? CLIENT_FAMILIES : [handlerFamily];
  return families.flatMap((family) => family.checks(spec));
}

/** A check as data: what reports and listings need, without its judge. */
function definitionOf(check: CheckDefinition): CheckDefinition {
  const {
    id,
    title,
    clause,
    level,
    ambiguous,
    reason,
    remedy,
    needs,
    variantOf,
    subsumedBy,
    money,
    onePerRun,
  } = check;
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
    ...(money === undefined ? {} : { money }),
    ...(onePerRun === undefined ? {} : { onePerRun }),
  };
}

const cached = new Map<Side, readonly CheckDefinition[]>();

export function catalogue(side: Side): readonly CheckDefinition[] {
  const spec = loadSpec();
  const built =
    cached.get(side) ?? familiesOf(side).flatMap((family) => family.checks(spec).map(definitionOf));
  cached.set(side, built);
  return built;
}
