/**
 * The receiver's data directory: one append-only JSON-lines file per run, fsync'd before anything
 * in it is acknowledged, so a restart (or a crash) loses nothing a provider or a run was told was
 * kept. Closing a run deletes its file; there is nothing to compact.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Delivery, DeliveryMeta } from '../evidence/delivery.ts';

export interface RunRecord {
  /** 32 hex characters: the run's unguessable handle. */
  readonly key: string;
  readonly openedAt: number;
  /** The base of the run's PostBackUrls, e.g. https://hooks.example.com/pix. */
  readonly publicBase: string;
}

export type JournalEntry =
  | {
      readonly type: 'address';
      readonly path: string;
      readonly registeredSeq: number;
      readonly straysBefore: number;
      readonly unattributedBefore: number;
      /** The address answers its first complete POST with this status (AddressOptions). */
      readonly refuseFirst?: number;
      /** What follows the key in the address's URL, when it was registered whole (AddressOptions). */
      readonly tail?: string;
    }
  | { readonly type: 'delivery'; readonly address: string; readonly delivery: Delivery }
  | { readonly type: 'stray'; readonly stray: DeliveryMeta };

export interface StoredRun {
  readonly run: RunRecord;
  readonly entries: readonly JournalEntry[];
}

export interface Journal {
  load(): Promise<StoredRun[]>;
  openRun(run: RunRecord): Promise<void>;
  append(runKey: string, entry: JournalEntry): Promise<void>;
  dropRun(runKey: string): Promise<void>;
  close(): Promise<void>;
}

const RUN_FILE = /^([0-9a-f]{32})\.jsonl$/;

/**
 * One run's file. Appends that come while a write is under way wait for the next one and share its
 * fsync (group commit), so a burst costs a few fsyncs instead of one per delivery.
 */
class RunFile {
  readonly #handle: FileHandle;
  #queue: { line: string; done: (error?: Error) => void }[] = [];
  #writing: Promise<void> | undefined;

  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  append(value: unknown): Promise<void> {
    const line = `${JSON.stringify(value)}\n`;
    return new Promise((resolve, reject) => {
      this.#queue.push({ line, done: (error) => (error === undefined ? resolve() : reject(error)) });
      this.#writing ??= this.#drain();
    });
  }

  async close(): Promise<void> {
    await this.#writing;
    await this.#handle.close();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      try {
        await this.#handle.appendFile(batch.map((item) => item.line).join(''));
        await this.#handle.sync();
        for (const item of batch) item.done();
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const item of batch) item.done(failure);
      }
    }
    this.#writing = undefined;
  }
}

/** Makes a directory entry (a file created or removed) itself durable. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Creates the directory and its missing parents one level at a time: fs.mkdir's recursive mode never
 * returns for some paths (Node 20 spins on e.g. /proc/x), and a receiver must fail, not hang.
 */
async function makeDirectory(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.unshift(at);
  for (const path of missing) await mkdir(path, { mode: 0o700 });
}

/** Lines that do not parse are skipped: only the last one can be torn, and it was never acknowledged. */
function parseLines(text: string): unknown[] {
  return text.split('\n').flatMap((line) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      return [];
    }
  });
}

export class DirectoryJournal implements Journal {
  readonly #dir: string;
  readonly #files = new Map<string, RunFile>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Creates the directory (owner only: deliveries may carry personal data) and proves it writable. */
  static async open(dir: string): Promise<DirectoryJournal> {
    await makeDirectory(dir);
    const probe = join(dir, '.write-test');
    await (await open(probe, 'w', 0o600)).close();
    await rm(probe);
    return new DirectoryJournal(dir);
  }

  async load(): Promise<StoredRun[]> {
    const names = (await readdir(this.#dir)).filter((name) => RUN_FILE.test(name));
    const runs: StoredRun[] = [];
    for (const name of names) {
      const [header, ...entries] = parseLines(await readFile(join(this.#dir, name), 'utf8'));
      const run = header as RunRecord | undefined;
      if (run?.key !== name.slice(0, 32)) continue;
      this.#files.set(run.key, new RunFile(await open(join(this.#dir, name), 'a', 0o600)));
      runs.push({ run, entries: entries as JournalEntry[] });
    }
    return runs;
  }

  async openRun(run: RunRecord): Promise<void> {
    const file = new RunFile(await open(this.#pathOf(run.key), 'a', 0o600));
    this.#files.set(run.key, file);
    await file.append(run);
    await syncDirectory(this.#dir);
  }

  append(runKey: string, entry: JournalEntry): Promise<void> {
    const file = this.#files.get(runKey);
    return file === undefined
      ? Promise.reject(new Error(`no journal for run ${runKey}`))
      : file.append(entry);
  }

  async dropRun(runKey: string): Promise<void> {
    await this.#files.get(runKey)?.close();
    this.#files.delete(runKey);
    await rm(this.#pathOf(runKey), { force: true });
    await syncDirectory(this.#dir);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#files.values()].map((file) => file.close()));
    this.#files.clear();
  }

  #pathOf(runKey: string): string {
    return join(this.#dir, `${runKey}.jsonl`);
  }
}
