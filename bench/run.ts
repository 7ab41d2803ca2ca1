/**
 * npm run bench: the wall time and the peak memory of the whole process tree of a full certification,
 * as a user types it, side by side: against the embedded mock and against the sandbox's reference
 * reading, from these sources (`npm run certify`) and from the installed package (`npx pix-certify`),
 * under each Node version found (see runtimes.ts). The rows' runs are interleaved, so that a machine
 * that gets busier or quieter during the bench weighs on every row alike. Asserts nothing.
 *
 * One more row times `pix-certify history` over 200 runs (history-runs.ts makes them), from the
 * sources.
 *
 * BENCH_RUNS sets the runs per row (default 7); --tarball <path> or BENCH_TARBALL installs that
 * tarball instead of packing this repository.
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../sandbox/server.ts';
import { sandboxEnv } from '../selftest/support/live-env.ts';
import { type Command, measure, type Sample, summarise } from './measure.ts';
import { runtimes } from './runtimes.ts';
import { BIN } from '../selftest/support/installed-package.ts';
import { installedPackage } from './tarball.ts';
import { historyRuns } from './history-runs.ts';
import { rmSync } from 'node:fs';

const ROOT = join(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? '7');
/** The runs a QA history covers: about a month of nightly runs, several times over. */
const HISTORY_RUNS = 200;

interface Row {
  readonly label: string;
  readonly command: Command;
}

type Target = 'mock' | 'live';

const sandbox = await startSandbox();
/** The user's own webhook wait (the default), not the self-tests' short one: its grace is part of a live run. */
const liveEnv = Object.fromEntries(
  Object.entries(sandboxEnv(sandbox, 'reference')).filter(([key]) => key !== 'PIX_WEBHOOK_TIMEOUT_MS'),
);

function rowsFor(path: string, label: string, installDir: string | undefined): Row[] {
  const rows: Row[] = [];
  for (const target of ['mock', 'live'] as Target[]) {
    const env = { PATH: path, ...(target === 'live' ? liveEnv : {}) };
    rows.push({
      label: `${label}  npm run certify (sources, ${target})`,
      command: { file: 'npm', args: ['run', 'certify'], cwd: ROOT, env },
    });
    if (installDir !== undefined)
      rows.push({
        label: `${label}  npx ${BIN} (tarball, ${target})`,
        command: { file: 'npx', args: ['--no', BIN], cwd: installDir, env },
      });
  }
  return rows;
}

const notes: string[] = [];
let historyDir: string | undefined;
try {
  const installed = await installedPackage(process.argv.slice(2));
  if ('skipped' in installed) notes.push(`tarball rows skipped: ${installed.skipped}`);
  const { found, missing } = runtimes();
  notes.push(...missing);
  const history = await historyRuns(liveEnv, HISTORY_RUNS);
  historyDir = history.workDir;
  const rows = [
    ...found.flatMap((runtime) =>
      rowsFor(runtime.path, runtime.label, 'dir' in installed ? installed.dir : undefined),
    ),
    {
      label: `history of ${HISTORY_RUNS} runs (sources)`,
      command: {
        file: process.execPath,
        args: [
          '--import',
          'tsx',
          join(ROOT, 'bin', 'history.ts'),
          ...history.dirs,
          '--out',
          join(history.workDir, 'history.html'),
        ],
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '' },
      },
    },
  ];
  const samples = new Map<Row, Sample[]>(rows.map((row) => [row, []]));
  const loadBefore = loadavg()[0] ?? 0;
  for (let round = 0; round < RUNS; round++) {
    process.stderr.write(`bench: round ${round + 1} of ${RUNS}\n`);
    // Each round starts with another row, so that no row always follows the same one.
    for (let i = 0; i < rows.length; i++) {
      const row = rows[(round + i) % rows.length];
      if (row !== undefined) samples.get(row)?.push(await measure(row.command));
    }
  }
  const width = Math.max(...rows.map((r) => r.label.length));
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  const lines = [
    `${cpus().length} cores, load average ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after; ${RUNS} runs per row, interleaved`,
    `${'row'.padEnd(width)}  median   min      max      peak RSS of the tree (median, max)  processor time (median), median against the first row`,
  ];
  const first = rows[0] === undefined ? undefined : summarise(samples.get(rows[0]) ?? [], 0);
  for (const row of rows) {
    const summary = summarise(samples.get(row) ?? [], 0);
    const ratio = first === undefined ? '' : `  ×${(summary.medianMs / first.medianMs).toFixed(2)}`;
    lines.push(
      `${row.label.padEnd(width)}  ${s(summary.medianMs)}  ${s(summary.minMs)}  ${s(summary.maxMs)}  ${summary.medianPeakMb.toFixed(0)} MB, ${summary.maxPeakMb.toFixed(0)} MB  ${summary.medianCpuSeconds.toFixed(1)} s${ratio}`,
    );
    for (const failed of summary.failedRuns)
      lines.push(`  a run exited ${failed.exitCode} instead of 0:\n${failed.stderrTail}`);
  }
  process.stdout.write(`${[...lines, ...notes.map((n) => `note: ${n}`)].join('\n')}\n`);
} finally {
  await sandbox.close();
  if (historyDir !== undefined) rmSync(historyDir, { recursive: true, force: true });
}
