/**
 * The command pix-certify client certifies, run so that nothing it starts can reach the signer: it
 * gets an explicit environment (the namespace's five variables and the caller's own, without any of
 * the suite's PIX_* variables, so never PIX_SIGNING_KEY_FILE), and every process it started that is
 * still alive when it ends (in its group or session, or carrying the namespace's credentials in its
 * environment, whatever session it moved to) is ended and named before any report is written.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { INTERNAL_VARIABLES } from '../base/run-state.ts';
import { VARIABLES } from '../config/variables.ts';
import { maskingStream } from '../secrets/masking-stream.ts';

/** A process the command started that outlived it, ended by the suite. */
export interface LeftoverProcess {
  readonly pid: number;
  /** Its command line, as /proc gives it. */
  readonly command: string;
}

/** What the command under certification did, as the report shows it (never our exit code). */
export interface CommandRun {
  readonly line: string;
  /** null when it was ended by a signal or by the time limit. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** It was still running at the time limit (PIX_CLIENT_TIMEOUT_S) and was stopped. */
  readonly timedOut: boolean;
  /** Its own wall time, from its start to its exit: what the certification adds is the rest of the run's. */
  readonly durationMs: number;
  /** Processes it started that were still alive after it ended: each was ended before the report. */
  readonly leftovers: readonly LeftoverProcess[];
}

/** After SIGTERM, the command's process group has this long before SIGKILL. */
const KILL_GRACE_MS = 2000;
/** Scans of the process table for leftovers: a process forking while it is ended is found by the next. */
const SWEEP_ROUNDS = 20;
const SWEEP_PAUSE_MS = 50;

const SUITE_ONLY: ReadonlySet<string> = new Set([...VARIABLES, ...INTERNAL_VARIABLES]);

/**
 * The command's environment: the caller's, without the suite's own PIX_* variables (the signing key,
 * the report directory, the strictness…), and the variables the command is documented to get.
 */
export function commandEnvironment(
  caller: NodeJS.ProcessEnv,
  given: Readonly<Record<string, string>>,
): Record<string, string> {
  const kept = Object.entries(caller).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && !SUITE_ONLY.has(entry[0]),
  );
  return { ...Object.fromEntries(kept), ...given };
}

interface ProcessEntry {
  readonly pid: number;
  readonly group: number;
  readonly session: number;
}

/** A process's group and session from /proc/<pid>/stat (the fields after its name's closing parenthesis). */
async function entryOf(pid: number): Promise<ProcessEntry | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields === undefined || fields[0] === 'Z') return undefined;
  return { pid, group: Number(fields[2]), session: Number(fields[3]) };
}

/** Every live process but this one that the command started: in its group or session, or with `marker` in its environment. */
async function startedBy(root: number, marker: string): Promise<LeftoverProcess[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const found: LeftoverProcess[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!/^\d+$/.test(name) || pid === process.pid) continue;
    const entry = await entryOf(pid);
    if (entry === undefined) continue;
    const ours =
      entry.group === root ||
      entry.session === root ||
      ((await readFile(`/proc/${pid}/environ`).catch(() => undefined))?.includes(marker) ?? false);
    if (!ours) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    found.push({ pid, command: cmdline.split('\0').filter(Boolean).join(' ') || `(pid ${pid})` });
  }
  return found;
}

/** Ends every process the command left behind, scanning again until none is left (bounded). */
async function endLeftovers(root: number, marker: string): Promise<LeftoverProcess[]> {
  const ended = new Map<number, LeftoverProcess>();
  for (let round = 0; round < SWEEP_ROUNDS; round++) {
    const alive = await startedBy(root, marker);
    if (alive.length === 0) break;
    for (const leftover of alive) {
      signal(leftover.pid, 'SIGKILL');
      if (!ended.has(leftover.pid)) ended.set(leftover.pid, leftover);
    }
    await delay(SWEEP_PAUSE_MS);
  }
  return [...ended.values()];
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

export interface CommandOptions {
  readonly words: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutS: number;
  /** A string only the command's processes carry in their environment (the namespace's secret, as set). */
  readonly marker: string;
  /** Told when the command ran past its time, or could not start. */
  readonly tell: (line: string) => void;
  /** Where the command's output goes, every registered secret masked on its way (the console). */
  readonly output: { readonly stdout: ConsoleStream; readonly stderr: ConsoleStream };
}

/** A stream the command's output is written to; a terminal says so. */
type ConsoleStream = Writable & { readonly isTTY?: boolean };

/** One of the command's outputs passing through a masker to the console, which stays open. */
interface PassedOn {
  /** Once all of it was written. */
  readonly ended: Promise<unknown>;
  /** Stops waiting for more (a process the sweep could not find may hold the pipe), writing what was kept. */
  readonly stop: () => void;
}

function passOn(from: Readable, to: ConsoleStream): PassedOn {
  const masking = maskingStream();
  from.pipe(masking).pipe(to, { end: false });
  return {
    ended: finished(masking).catch(() => undefined),
    stop: () => {
      from.unpipe(masking);
      from.destroy();
      masking.end();
    },
  };
}

/** Waits for the command's output to end, once its processes are ended at most KILL_GRACE_MS more. */
async function drained(outputs: readonly PassedOn[]): Promise<void> {
  const grace = new AbortController();
  const late = delay(KILL_GRACE_MS, true, { signal: grace.signal }).catch(() => false);
  const stopped = await Promise.race([Promise.all(outputs.map((o) => o.ended)).then(() => false), late]);
  grace.abort();
  if (stopped) for (const output of outputs) output.stop();
}

/**
 * At a terminal the command writes to a pipe all the same: FORCE_COLOR keeps its colours where its
 * tools honour it, unless its environment already says how (FORCE_COLOR or NO_COLOR).
 */
function coloured(
  env: Readonly<Record<string, string>>,
  terminal: ConsoleStream,
): Readonly<Record<string, string>> {
  const chosen = env.FORCE_COLOR !== undefined || env.NO_COLOR !== undefined;
  return terminal.isTTY === true && !chosen ? { ...env, FORCE_COLOR: '1' } : env;
}

/**
 * Runs the command in a session of its own, stopped (group and all) at the time limit, its output
 * passed on with every registered secret masked; once it ends, every process it left behind is ended
 * and named.
 */
export async function runCommand(options: CommandOptions): Promise<CommandRun> {
  const { words, env, timeoutS, marker, tell, output } = options;
  const [file, ...rest] = words;
  const started = performance.now();
  const posix = process.platform !== 'win32';
  const child = spawn(file ?? '', rest, {
    stdio: ['inherit', 'pipe', 'pipe'],
    env: coloured(env, output.stdout),
    detached: posix,
  });
  const outputs = [passOn(child.stdout, output.stdout), passOn(child.stderr, output.stderr)];
  const root = child.pid ?? -1;
  const signalGroup = (name: NodeJS.Signals): void => signal(posix ? -root : root, name);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    tell(`the command ran past ${timeoutS} s (--timeout, PIX_CLIENT_TIMEOUT_S): stopping it`);
    signalGroup('SIGTERM');
    setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS).unref();
  }, timeoutS * 1000);
  process.on('SIGINT', signalGroup);
  process.on('SIGTERM', signalGroup);
  const { exitCode, signal: ended } = await new Promise<{ exitCode: number | null; signal: string | null }>(
    (done) => {
      child.once('error', (error) => {
        tell(`the command could not start: ${error.message}`);
        done({ exitCode: null, signal: null });
      });
      child.once('exit', (code, name) => done({ exitCode: code, signal: name }));
    },
  );
  const durationMs = Math.round(performance.now() - started);
  clearTimeout(timer);
  process.off('SIGINT', signalGroup);
  process.off('SIGTERM', signalGroup);
  const leftovers = root === -1 ? [] : await endLeftovers(root, marker);
  if (root !== -1) signalGroup('SIGKILL');
  await drained(outputs);
  return { line: words.join(' '), exitCode, signal: ended, timedOut, durationMs, leftovers };
}
