/**
 * One timed run of a command as a user types it, with the peak resident memory of its whole process
 * tree, and the medians of many such runs.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchProcessTree } from '../selftest/support/process-tree.ts';

export interface Sample {
  readonly ms: number;
  readonly peakRssBytes: number;
  /** Processor time of the whole tree (user and system): the run's own work, which a busy machine does not inflate. */
  readonly cpuSeconds: number;
  readonly exitCode: number;
  /** The end of the run's error output, kept to tell why a run did not exit as expected. */
  readonly stderrTail: string;
}

export interface Command {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** Only what a user would set: nothing of the bench's own PIX_* settings reaches the run. */
function userEnvironment(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PIX_')));
  return { ...base, FORCE_COLOR: '0', ...extra };
}

/** Linux reports processor time in ticks of 1/100 s (USER_HZ) to user space. */
const TICKS_PER_SECOND = 100;

/**
 * The processor time of this process's children that ended and were waited for (cutime + cstime of
 * /proc/self/stat), their own waited-for children's included: read before and after a run, the whole
 * tree's to the tick, where sampling each process would miss its last moments.
 */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/**
 * Runs the command once in a report directory of its own; that directory's variable marks every
 * process of the run in /proc, npm and Prism included, so that their memory is summed.
 */
export async function measure(command: Command): Promise<Sample> {
  const reportDir = mkdtempSync(join(tmpdir(), 'pix-bench-'));
  const marker = `PIX_REPORT_DIR=${reportDir}`;
  const watch = watchProcessTree(marker);
  const started = performance.now();
  const cpuBefore = childrenCpuSeconds();
  try {
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        command.file,
        [...command.args],
        {
          cwd: command.cwd,
          env: userEnvironment({ ...command.env, PIX_REPORT_DIR: reportDir }),
          maxBuffer: 32 * 1024 * 1024,
          timeout: 300_000,
        },
        (error, _stdout, stderrText) => {
          const exit = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
          resolve({ code: exit, stderr: stderrText });
        },
      );
    });
    return {
      ms: performance.now() - started,
      peakRssBytes: watch.peakRssBytes,
      cpuSeconds: childrenCpuSeconds() - cpuBefore,
      exitCode: code,
      stderrTail: stderr.slice(-1500),
    };
  } finally {
    watch.stop();
    rmSync(reportDir, { recursive: true, force: true });
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

export interface Summary {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly medianPeakMb: number;
  readonly maxPeakMb: number;
  readonly medianCpuSeconds: number;
  readonly runs: number;
  readonly failedRuns: readonly Sample[];
}

export function summarise(samples: readonly Sample[], expectedExit: number): Summary {
  const ms = samples.map((s) => s.ms);
  const mb = samples.map((s) => s.peakRssBytes / 1024 / 1024);
  return {
    medianMs: median(ms),
    minMs: Math.min(...ms),
    maxMs: Math.max(...ms),
    medianPeakMb: median(mb),
    maxPeakMb: Math.max(...mb),
    medianCpuSeconds: median(samples.map((s) => s.cpuSeconds)),
    runs: samples.length,
    failedRuns: samples.filter((s) => s.exitCode !== expectedExit),
  };
}
