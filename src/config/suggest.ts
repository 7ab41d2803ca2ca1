/** An unknown PIX_* name is most likely a typo: which one, and what it most likely meant. */
import { INTERNAL_VARIABLES } from '../base/run-state.ts';
import type { ConfigProblem } from './errors.ts';
import type { Env } from './dotenv.ts';
import { VARIABLES, type VariableName } from './variables.ts';
import { suiteCommand } from '../base/invocation.ts';

/** The number of single-character edits that turn one name into the other. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The variable a mistyped name most likely meant, if one is close enough to suggest. */
export function closestVariable(name: string): VariableName | undefined {
  const typed = name.toUpperCase();
  // A few edits, and fewer than a quarter of the distinctive part: PIX_URL suggests nothing.
  const limit = Math.min(3, Math.ceil(typed.replace(/^PIX_/, '').length / 4));
  let best: { name: VariableName; distance: number } | undefined;
  for (const candidate of VARIABLES) {
    const distance = editDistance(typed, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}

export function unknownVariables(env: Env): ConfigProblem[] {
  const known = new Set<string>([...VARIABLES, ...INTERNAL_VARIABLES]);
  return Object.keys(env)
    .filter((name) => name.toUpperCase().startsWith('PIX_') && !known.has(name))
    .map((name) => {
      const guess = closestVariable(name);
      const fix =
        guess === undefined
          ? `Check the spelling: ${suiteCommand('certify', '--help')} and .env.example list every variable.`
          : `Did you mean ${guess}?`;
      return { variable: name, line: `${name}: is not a variable of this suite. ${fix}` };
    });
}
