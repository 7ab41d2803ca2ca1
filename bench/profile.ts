/**
 * Where a mock certification spends its wall and processor time: `node --import tsx bench/profile.ts`
 * runs `npm run certify` (the embedded mock, this Node) PROFILE_RUNS times (default 3), with
 * PROFILE_PHASES naming a file for the phase marks the run's processes append (src/base/phase.ts),
 * and samples every process of the run from /proc. It prints each process's span, processor time and
 * peak memory, and each phase's time since the run began with the processor time its process had
 * used by then, medians of the runs. BENCH_BASELINE=<commit> profiles that commit's clone (baseline.ts)
 * instead: an earlier commit without the marks shows its processes only.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PhaseMark } from '../src/base/phase.ts';
import { baselineCheckout } from './baseline.ts';
import { median } from './measure.ts';

const ROOT = join(import.meta.dirname, '..');
const RUNS = Number(process.env.PROFILE_RUNS ?? '3');
const SAMPLE_MS = 20;
const TICK_MS = 10;

interface Seen {
  /** Read again at every sample: a process just forked shows its parent's command line until it execs. */
  name: string;
  readonly firstMs: number;
  lastMs: number;
  cpuMs: number;
  peakRssMb: number;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** What a process of the run is, by its command line. */
function nameOf(cmdline: string): string {
  if (cmdline.includes('@playwright') || cmdline.includes('playwright/')) return 'Playwright worker';
  if (/\bnpm\b/.test(cmdline.split(' ').slice(0, 2).join(' '))) return 'npm';
  if (cmdline.startsWith('sh ')) return 'sh (npm script)';
  if (cmdline.includes('certify')) return 'pix-certify (runner, Prism thread)';
  return cmdline.slice(0, 36);
}

/** Every process whose environment holds the marker, sampled until the run ends. */
function sampleTree(marker: string, started: number): { stop: () => Seen[] } {
  const seen = new Map<string, Seen | null>();
  const sample = (): void => {
    const now = performance.now() - started;
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let entry = seen.get(pid);
      if (entry === undefined) {
        const environ = read(`/proc/${pid}/environ`);
        if (environ === '') continue;
        entry = environ.split('\0').includes(marker)
          ? {
              name: nameOf(read(`/proc/${pid}/cmdline`).split('\0').join(' ')),
              firstMs: now,
              lastMs: now,
              cpuMs: 0,
              peakRssMb: 0,
            }
          : null;
        seen.set(pid, entry);
      }
      if (entry === null) continue;
      const stat = read(`/proc/${pid}/stat`);
      if (stat === '') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      entry.lastMs = now;
      const cmdline = read(`/proc/${pid}/cmdline`).split('\0').join(' ');
      if (cmdline !== '') entry.name = nameOf(cmdline);
      entry.cpuMs = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      const kb = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`))?.[1];
      if (kb !== undefined) entry.peakRssMb = Math.max(entry.peakRssMb, Number(kb) / 1024);
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return [...seen.values()].filter((s): s is Seen => s !== null);
    },
  };
}

interface Run {
  readonly wallMs: number;
  readonly processes: Seen[];
  readonly marks: PhaseMark[];
  readonly startedAt: number;
}

async function profileOnce(cwd: string): Promise<Run> {
  const work = mkdtempSync(join(tmpdir(), 'pix-profile-'));
  const phases = join(work, 'phases.jsonl');
  const reportDir = join(work, 'report');
  const startedAt = Date.now();
  const started = performance.now();
  const tree = sampleTree(`PIX_REPORT_DIR=${reportDir}`, started);
  try {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PIX_')));
    await new Promise<void>((resolve, reject) =>
      execFile(
        'npm',
        ['run', 'certify'],
        {
          cwd,
          env: { ...env, FORCE_COLOR: '0', PIX_REPORT_DIR: reportDir, PROFILE_PHASES: phases },
          maxBuffer: 32 * 1024 * 1024,
        },
        (error) =>
          error === null ? resolve() : reject(new Error(`npm run certify failed: ${error.message}`)),
      ),
    );
    const wallMs = performance.now() - started;
    const marks = existsSync(phases)
      ? read(phases)
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as PhaseMark)
      : [];
    return { wallMs, processes: tree.stop(), marks, startedAt };
  } finally {
    tree.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

const fixed = (ms: number): string => `${Math.round(ms)}`.padStart(6);

/** The medians over the runs of what each process and each phase took. */
function describe(runs: readonly Run[]): string[] {
  const lines = [
    `wall time ${fixed(median(runs.map((r) => r.wallMs)))} ms (median of ${runs.length})`,
    '',
    'process                              from ms  to ms  processor ms  peak MB',
  ];
  const names = [...new Set(runs.flatMap((r) => r.processes.map((p) => p.name)))];
  for (const name of names) {
    const of = (pick: (p: Seen) => number): number =>
      median(
        runs.map((r) => r.processes.filter((p) => p.name === name).reduce((sum, p) => sum + pick(p), 0)),
      );
    const first = median(
      runs.map((r) => Math.min(...r.processes.filter((p) => p.name === name).map((p) => p.firstMs))),
    );
    const last = median(
      runs.map((r) => Math.max(...r.processes.filter((p) => p.name === name).map((p) => p.lastMs))),
    );
    lines.push(
      `${name.padEnd(36)} ${fixed(first)} ${fixed(last)}  ${fixed(of((p) => p.cpuMs))}        ${fixed(of((p) => p.peakRssMb))}`,
    );
  }
  lines.push(
    `${'the tree'.padEnd(36)}                ${fixed(median(runs.map((r) => r.processes.reduce((sum, p) => sum + p.cpuMs, 0))))}`,
  );
  if (runs.every((r) => r.marks.length === 0))
    return [...lines, '', 'no phase marks: this commit does not write them'];
  lines.push(
    '',
    "phase (first time it is marked in a run)                 at ms  its process's processor ms",
  );
  const phases = [
    ...new Set(
      runs.flatMap((r) =>
        r.marks
          .filter((m) => !m.phase.startsWith('test: ') && !m.phase.startsWith('step: '))
          .map((m) => `${m.role}: ${m.phase}`),
      ),
    ),
  ];
  for (const key of phases) {
    const found = runs
      .map((r) => ({ r, m: r.marks.find((m) => `${m.role}: ${m.phase}` === key) }))
      .filter((x) => x.m !== undefined);
    lines.push(
      `${key.padEnd(54)} ${fixed(median(found.map(({ r, m }) => (m?.at ?? 0) - r.startedAt)))}  ${fixed(median(found.map(({ m }) => m?.cpuMs ?? 0)))}`,
    );
  }
  const spans = (prefix: string): string => {
    const per = runs.map((r) => r.marks.filter((m) => m.phase.startsWith(prefix) && m.since !== undefined));
    const total = median(per.map((ms) => ms.reduce((sum, m) => sum + m.at - (m.since ?? m.at), 0)));
    const longest = median(per.map((ms) => Math.max(0, ...ms.map((m) => m.at - (m.since ?? m.at)))));
    const first = median(
      per.map((ms, i) => Math.min(...ms.map((m) => (m.since ?? 0) - (runs[i]?.startedAt ?? 0)))),
    );
    const last = median(per.map((ms, i) => Math.max(...ms.map((m) => m.at - (runs[i]?.startedAt ?? 0)))));
    return `${median(per.map((ms) => ms.length))} from ${fixed(first)} to ${fixed(last)} ms, summed ${fixed(total)} ms, the longest ${fixed(longest)} ms`;
  };
  lines.push('', `tests: ${spans('test: ')}`, `test steps (the webhooks' waits): ${spans('step: ')}`);
  return lines;
}

const commit = process.env.BENCH_BASELINE?.trim() ?? '';
const cwd = commit === '' ? ROOT : (await baselineCheckout(commit)).dir;
process.stderr.write(`profile: a run not counted, then ${RUNS} runs of npm run certify in ${cwd}\n`);
await profileOnce(cwd);
const runs: Run[] = [];
const loadBefore = loadavg()[0] ?? 0;
for (let i = 0; i < RUNS; i++) runs.push(await profileOnce(cwd));
process.stdout.write(
  `${[`Node ${process.versions.node}, ${commit === '' ? 'these sources' : commit}, load average ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after`, ...describe(runs)].join('\n')}\n`,
);
