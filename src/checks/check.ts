/**
 * A check: a definition (id, title, clause, level, reason) and a pure function that judges an input
 * and returns violations; no violation means PASSED.
 */
import type { Capability, CheckDefinition, Level, Verdict } from './vocabulary.ts';

export interface Violation {
  readonly verdict: 'FAILED' | 'WARNING';
  readonly expected: string;
  readonly actual: string;
}

export interface Check<Input> extends CheckDefinition {
  readonly judge: (input: Input) => Violation[];
  /**
   * Why this input holds nothing the check judges (no delivery, no answer), or undefined: the
   * recorder then records SKIPPED with that reason, never PASSED (selftest/catalogue-audit.test.ts).
   */
  readonly unjudgeable: (input: Input) => string | undefined;
}

export function defineCheck<Input>(
  definition: Omit<CheckDefinition, 'needs'> & { needs?: readonly Capability[] },
  judge: (input: Input) => Violation[],
  unjudgeable: (input: Input) => string | undefined = () => undefined,
): Check<Input> {
  return { ...definition, needs: definition.needs ?? [], judge, unjudgeable };
}

/** A violation at the level of the check: a `should` check can never yield FAILED. */
export function violation(level: Level, expected: string, actual: string): Violation {
  return { verdict: level === 'must' ? 'FAILED' : 'WARNING', expected, actual };
}

export function verdictOf(violations: readonly Violation[]): Verdict {
  if (violations.some((v) => v.verdict === 'FAILED')) return 'FAILED';
  return violations.length > 0 ? 'WARNING' : 'PASSED';
}

/**
 * The verdict a check of this level may give: only a `must` check can FAIL. Every judgement applies it,
 * so a `should` check stays below FAILED whatever its call sites say; a `must` check may still warn
 * where its own table calls the document ambiguous (refusal.ts).
 */
export function verdictWithin<V extends Verdict>(level: Level, verdict: V): V | 'WARNING' {
  return verdict === 'FAILED' && level !== 'must' ? 'WARNING' : verdict;
}

/** What one check made of one input: why the input held nothing to judge, or its violations. */
export type Judgement = { readonly unjudged: string } | { readonly violations: readonly Violation[] };

/**
 * The one way a check is applied, by certify's recorder and by the client certification alike: an
 * input it cannot judge is never PASSED, and each violation stays within the check's level.
 */
export function judgement<Input>(check: Check<Input>, input: Input): Judgement {
  const unjudged = check.unjudgeable(input);
  if (unjudged !== undefined) return { unjudged };
  return {
    violations: check.judge(input).map((v) => ({ ...v, verdict: verdictWithin(check.level, v.verdict) })),
  };
}
