/**
 * Watches a run's whole process tree while it runs: every process whose environment holds a marker
 * (the run's unique PIX_REPORT_DIR), sampled from /proc. It keeps the peak of their summed resident
 * memory and the processor time they used: the run's own work, which unlike wall time does not grow
 * when other work shares the machine. It also notes where the run's secrets registry was, which only
 * the run's own processes are told.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeWatch {
  /** The highest sum of the processes' resident memory seen in one sample. */
  readonly peakRssBytes: number;
  /** User and system time of all the processes, as last sampled (a process's last 100 ms may be missed). */
  readonly cpuSeconds: number;
  readonly samples: number;
  /** The command line of each of the run's processes seen, its arguments joined by spaces. */
  readonly commands: readonly string[];
  readonly secretsDir: string | undefined;
  stop(): void;
}

const SAMPLE_MS = 50;
/** Linux reports processor time in ticks of 1/100 s (USER_HZ) to user space. */
const TICKS_PER_SECOND = 100;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function rssBytes(pid: string): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`) ?? '')?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

/** The fields of /proc/<pid>/stat from its state on, read after the command name, which may hold spaces. */
function statFields(pid: string): string[] | undefined {
  const stat = read(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime. */
function cpuTicks(pid: string): number | undefined {
  const fields = statFields(pid);
  return fields && Number(fields[11]) + Number(fields[12]);
}

/** PF_KTHREAD among the process's flags (include/linux/sched.h). */
const KERNEL_THREAD_FLAG = 0x00200000;

function isKernelThread(pid: string): boolean {
  return (Number(statFields(pid)?.[6] ?? 0) & KERNEL_THREAD_FLAG) !== 0;
}

export function watchProcessTree(marker: string): TreeWatch {
  /** Every process seen once, and whether it belongs to the run (a pid is not reused within a run). */
  const seen = new Map<string, boolean>();
  const ticks = new Map<string, number>();
  const commands = new Map<string, string>();
  const watch = { peakRssBytes: 0, samples: 0, secretsDir: undefined as string | undefined };
  const sample = (): void => {
    let total = 0;
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      if (!seen.has(pid)) {
        const raw = read(`/proc/${pid}/environ`) ?? '';
        // A process being started shows no environment (nor command line) while it execs: look again at
        // the next sample. Only a kernel thread has none for good.
        if (raw === '' && !isKernelThread(pid)) continue;
        const environment = raw.split('\0');
        seen.set(pid, environment.includes(marker));
        const registry = environment.find((entry) => entry.startsWith('PIX_SECRETS_DIR='));
        if (seen.get(pid) === true && registry !== undefined) watch.secretsDir = registry.split('=')[1];
      }
      if (seen.get(pid) !== true) continue;
      // Read at every sample: a process just forked shows its parent's command line until it execs.
      const command = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
      if (command !== '') commands.set(pid, command);
      total += rssBytes(pid);
      ticks.set(pid, cpuTicks(pid) ?? ticks.get(pid) ?? 0);
    }
    watch.samples += 1;
    watch.peakRssBytes = Math.max(watch.peakRssBytes, total);
  };
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    get peakRssBytes() {
      return watch.peakRssBytes;
    },
    get cpuSeconds() {
      return [...ticks.values()].reduce((sum, t) => sum + t, 0) / TICKS_PER_SECOND;
    },
    get samples() {
      return watch.samples;
    },
    get commands() {
      return [...commands.values()];
    },
    get secretsDir() {
      return watch.secretsDir;
    },
    stop: () => clearInterval(timer),
  };
}
