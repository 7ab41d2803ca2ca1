/**
 * Phase marks for bench/profile.ts: where PROFILE_PHASES names a file, each mark appends a
 * line of JSON to it (the process, its role, the time since the epoch, its own processor time so far);
 * without it a mark returns at once, so a run that is not profiled pays one variable's lookup.
 */
import { appendFileSync } from 'node:fs';

export interface PhaseMark {
  readonly phase: string;
  readonly pid: number;
  /** pix-certify (with Playwright's runner and Prism's thread), or a worker by its index. */
  readonly role: string;
  /** Milliseconds since the epoch, to the microsecond. */
  readonly at: number;
  /** This process's user and system time so far, every thread's, in milliseconds. */
  readonly cpuMs: number;
  /** When a mark tells a span that began earlier (a test, a webhook's wait): its start, ms since the epoch. */
  readonly since?: number;
}

let firstMarked = false;

function append(file: string, phase: string, at: number, cpuMs: number, since?: Date): void {
  const worker = process.env.TEST_WORKER_INDEX;
  const mark: PhaseMark = {
    phase,
    pid: process.pid,
    role: worker === undefined ? 'pix-certify' : `worker ${worker}`,
    at,
    cpuMs,
    ...(since === undefined ? {} : { since: since.getTime() }),
  };
  appendFileSync(file, `${JSON.stringify(mark)}\n`);
}

export function markPhase(phase: string, since?: Date): void {
  const file = process.env.PROFILE_PHASES;
  if (file === undefined || file === '') return;
  if (!firstMarked) {
    firstMarked = true;
    // The process's own start, which Node records before any module of ours loads.
    append(file, 'process starts', performance.timeOrigin, 0);
    process.once('exit', () => markPhase('process exits'));
  }
  const usage = process.cpuUsage();
  append(file, phase, performance.timeOrigin + performance.now(), (usage.user + usage.system) / 1000, since);
}
