/**
 * How a test declares, once and statically, the checks it judges and its tags: Playwright keeps
 * both in the test's details, so a listing can show per check the tests (and tags) that judge it
 * without running anything, and the recorder refuses a verdict on a check the test did not declare.
 */
import type { TestDetails } from '@playwright/test';
import { ANSWER_CHECKS } from './responses.ts';
import { CHECKS_ANNOTATION, type CheckDefinition } from './vocabulary.ts';

/** The fixed list, so that --grep means the same everywhere. */
export type Tag = '@smoke' | '@negative' | '@auth' | '@webhook' | '@payout' | '@mutating';

export interface Declaration {
  readonly checks: readonly CheckDefinition[];
  readonly tags: readonly Tag[];
  /** false for a test that sends no request, so judges none of the checks every response must pass. */
  readonly sendsRequests?: boolean;
}

/** The test's details: its tags and a `pix-checks` annotation listing the ids it judges. */
export function judging({ checks, tags, sendsRequests = true }: Declaration): TestDetails {
  const judged = sendsRequests ? [...checks, ...ANSWER_CHECKS] : checks;
  return {
    tag: [...tags],
    annotation: { type: CHECKS_ANNOTATION, description: [...new Set(judged.map((c) => c.id))].join(' ') },
  };
}

/** The ids a test declared, from its annotations; undefined when it declared none. */
export function declaredChecks(
  annotations: readonly { type: string; description?: string }[],
): ReadonlySet<string> | undefined {
  const declaration = annotations.find((a) => a.type === CHECKS_ANNOTATION);
  return declaration === undefined ? undefined : new Set((declaration.description ?? '').split(' '));
}

/** A test title from a check's: it reads like the clause, `refuses a withdrawal … (§4.2, §5.4)`. */
export function titleOf(title: string, clause: string): string {
  return `${title.charAt(0).toLowerCase()}${title.slice(1)} (${clause})`;
}
