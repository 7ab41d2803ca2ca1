/**
 * V8's young generation, bounded in the run's processes with Node's documented `--max-semi-space-size`
 * (MiB): by default each process lets it grow to 3 × 16 MiB, and the suite's short-lived allocations
 * need far less. `npm run certify` starts pix-certify with it (package.json), pix-certify forks
 * Playwright's workers with it (bin/certify.ts); docs/performance.md has what it buys.
 */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=2';
