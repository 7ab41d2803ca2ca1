/**
 * npm run bench: wall time of a full `npm run certify` against the embedded mock, and of the mock's
 * start-up alone, over several runs. Prints the median, minimum and maximum; asserts nothing.
 * BENCH_RUNS sets the number of runs (default 5).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startMock } from '../tests/_support/mock/prism.ts';

const ROOT = join(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? '5');
const run = promisify(execFile);

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

function summary(label: string, samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  const fmt = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  return `${label.padEnd(34)} median ${fmt(median)}  min ${fmt(sorted[0] ?? Number.NaN)}  max ${fmt(sorted.at(-1) ?? Number.NaN)}  (${sorted.length} runs)`;
}

/** Exactly what a user types, npm included: npm's own start-up is part of the wait. */
async function certifyOnce(): Promise<void> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PIX_')));
  const npm = process.env.npm_execpath;
  await run(
    npm === undefined ? 'npm' : process.execPath,
    [...(npm === undefined ? [] : [npm]), 'run', 'certify'],
    {
      cwd: ROOT,
      env: { ...env, PIX_REPORT_DIR: mkdtempSync(join(tmpdir(), 'pix-bench-')) },
    },
  );
}

const mockStarts: number[] = [];
const certifyRuns: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const started = performance.now();
  const mock = await startMock();
  mockStarts.push(performance.now() - started);
  await mock.stop();
  certifyRuns.push(await timed(certifyOnce));
}
process.stdout.write(
  `${summary('embedded mock start-up (Prism)', mockStarts)}\n${summary('npm run certify against the mock', certifyRuns)}\n`,
);
