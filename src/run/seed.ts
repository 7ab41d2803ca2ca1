/**
 * The run's seed, which every value the suite invents derives from (invent.ts). Kept apart from
 * faker so that Playwright's main process, which picks the seed, never loads it.
 */
import { randomInt } from 'node:crypto';
import type { Config } from '../config/config.ts';

/** Seeds are what PIX_SEED accepts: whole numbers that fit in 32 bits. */
const MAX_SEED = 2 ** 32 - 1;

/**
 * PIX_SEED when given; otherwise the first process to ask (Playwright's main process, loading its
 * config) picks one and puts it in PIX_SEED, which every worker inherits.
 */
export function runSeed(config: Config): number {
  if (config.seed !== undefined) return config.seed;
  const seed = randomInt(MAX_SEED);
  process.env.PIX_SEED = String(seed);
  return seed;
}
