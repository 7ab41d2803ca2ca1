/**
 * Runs a scan of the suite's own (masking, the leak check) over a hostile text of the largest size a
 * response may have, in a process of its own: a pattern that rescans a run from each of its positions
 * holds its thread for minutes or an hour, which no timer inside that thread can cut, while one pass
 * over the same text takes under a second.
 */
import { inFreshProcess } from './fresh-process.ts';

/** Over a hundred times the slowest pass (about half a second), a small share of a quadratic scan. */
const GIVEN_MS = 60_000;

/**
 * What `expression` gives for `text` (`unit` repeated to PIX_MAX_RESPONSE_BYTES' default, then `tail`),
 * `expression` calling `text` from `module` (a path under the repository); undefined if it did not end.
 */
export function inOnePass(
  module: string,
  expression: string,
  unit: string,
  tail: string,
): string | undefined {
  const script = `import * as scan from ${JSON.stringify(`./${module}`)};
    import { DEFAULT_MAX_RESPONSE_BYTES } from './src/config/config.ts';
    const text = ${JSON.stringify(unit)}.repeat(Math.ceil(DEFAULT_MAX_RESPONSE_BYTES / ${unit.length})) + ${JSON.stringify(tail)};
    process.stdout.write(String(${expression}));`;
  return inFreshProcess(script, { timeoutMs: GIVEN_MS });
}
