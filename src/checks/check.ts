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
}

export function defineCheck<Input>(
  definition: Omit<CheckDefinition, 'needs'> & { needs?: readonly Capability[] },
  judge: (input: Input) => Violation[],
): Check<Input> {
  return { ...definition, needs: definition.needs ?? [], judge };
}

/** A violation at the level of the check: a `should` check can never yield FAILED. */
export function violation(level: Level, expected: string, actual: string): Violation {
  return { verdict: level === 'must' ? 'FAILED' : 'WARNING', expected, actual };
}

export function verdictOf(violations: readonly Violation[]): Verdict {
  if (violations.some((v) => v.verdict === 'FAILED')) return 'FAILED';
  return violations.length > 0 ? 'WARNING' : 'PASSED';
}
