/**
 * What the webhook receiver heard, run by run. A run (one suite run) opens, registers unguessable
 * addresses, reads what arrived at them and closes; it never sees another run's addresses,
 * deliveries or strays. Everything is bounded (LIMITS), and with a journal every change is on disk
 * before it is visible, so a restart loses nothing that was acknowledged.
 */
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { isDelivered, type Delivery, type DeliveryMeta, type StrayReport } from '../evidence/delivery.ts';
import type { Journal, RunRecord, StoredRun } from './journal.ts';

/**
 * Memory: at most 10,000 deliveries with bodies (64 KiB each at most, plus at most 16 KiB of headers)
 * across all runs, so under 1 GiB even when providers flood their own addresses (real webhooks of a
 * few hundred bytes make it a few MiB); strays keep no body nor headers.
 */
export const LIMITS = {
  /** Runs open at once; opening one more forgets the oldest. */
  maxRuns: 100,
  /** A run open longer than this is forgotten with all it received. */
  runRetentionMs: 24 * 60 * 60 * 1000,
  maxAddressesPerRun: 1_000,
  /** Deliveries kept per address, per run and in all; later ones are only counted. */
  maxDeliveriesPerAddress: 100,
  maxDeliveriesPerRun: 2_000,
  maxDeliveries: 10_000,
  /** Strays kept per run (to paths under its addresses), and to paths of no run; later ones only counted. */
  maxStraysPerRun: 1_000,
  maxUnattributedStrays: 1_000,
  /** What one answer of the control API lists at most. */
  listedDeliveries: 50,
  listedStrays: 20,
} as const;

/** What a wait ends on: the first delivery answered 2xx, or the first request of any outcome. */
export type WaitUntil = 'delivery' | 'attempt';

/** A problem a control request gets as its answer: 404 for whatever is not the run's, 429 when full. */
export class StoreRefusal extends Error {
  readonly status: 404 | 429;

  constructor(status: 404 | 429, message: string) {
    super(message);
    this.status = status;
    this.name = 'StoreRefusal';
  }
}

export interface AddressReport {
  /** Every request to the address, complete or not, earliest first (at most LIMITS.listedDeliveries). */
  readonly deliveries: readonly Delivery[];
  /** Requests to the address beyond those listed. */
  readonly unlistedDeliveries: number;
  readonly strays: StrayReport;
}

/** Where a request path belongs. */
export type Location =
  | { readonly kind: 'address'; readonly run: string; readonly address: string }
  | { readonly kind: 'run-stray'; readonly run: string }
  | { readonly kind: 'unattributed' };

interface Address {
  readonly registeredSeq: number;
  /** Counters at registration, to count what came since. */
  readonly straysBefore: number;
  readonly unattributedBefore: number;
  /** The status the address answers its first complete POST with (the retry probe), or undefined. */
  readonly refuseFirst: number | undefined;
  /** What follows the key in the address's URL: ADDRESS_TAIL, or '' for the bare key. */
  readonly tail: string;
  /** Whether that refusal was given: taken at the request's end, so two at once cannot both get it. */
  refused: boolean;
  readonly deliveries: Delivery[];
  notKept: number;
}

/** What an address is registered with: a status for its first delivery, to see whether it comes again. */
export interface AddressOptions {
  /** A 5xx the first complete POST to the address is answered with, instead of 200. */
  readonly refuseFirst?: number;
  /** The address's URL ends in ADDRESS_TAIL (a path, a query, a percent-encoded character), matched whole. */
  readonly whole?: boolean;
}

interface Run extends RunRecord {
  /** The path of its public base ('' or '/prefix'), under which its addresses count too. */
  readonly prefix: string;
  readonly addresses: Map<string, Address>;
  readonly strays: DeliveryMeta[];
  strayCount: number;
  /** Deliveries kept, over all its addresses. */
  kept: number;
}

/** 32 lower-case hex characters: 128 random bits, so no one reaches an address or a run by guessing. */
const UNGUESSABLE = /^[0-9a-f]{32}$/;
/** An address anywhere in a path, to attribute '/prefix/<address>/more' to the address's run. */
const ADDRESS_IN_PATH = /\/([0-9a-f]{32})(?=[^0-9a-f]|$)/i;

const newKey = (): string => randomBytes(16).toString('hex');

/**
 * What follows the key in an address registered whole: a path segment, a query string and a
 * percent-encoded character, so that a provider that rebuilds the PostBackUrl (drops or rewrites the
 * query, decodes a character) misses it (§6: the address in PostBackUrl, the whole address).
 */
// Upper- and lower-case letters in its path and query: a provider folding either posts elsewhere (RFC 3986 §6.2.2.1).
export const ADDRESS_TAIL = '/Pix%20Webhook?Source=pix-certify&Tag=a%2Fb';

/** A request target with its percent-escapes in upper case: %2f and %2F are the same character (RFC 3986). */
const normalTarget = (target: string): string =>
  target.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());

export interface StoreOptions {
  readonly journal?: Journal;
  /**
   * True for a receiver several runs share: strays to paths of no run are counted, never listed.
   * False for the suite's own receiver, whose only run sees them all.
   */
  readonly shared: boolean;
  /** Told each run that opens and closes (the service logs them); never the run's key itself. */
  readonly log?: (line: string) => void;
}

/** A run as a log names it: a digest of its key, which says which run without giving access to it. */
const runLabel = (key: string): string => `run ${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;

export class ReceiverStore {
  #lastSeq = 0;
  #kept = 0;
  #unattributedCount = 0;
  readonly #unattributed: DeliveryMeta[] = [];
  readonly #runs = new Map<string, Run>();
  /** Every registered address ('/<hex>') and its run. */
  readonly #owners = new Map<string, string>();
  /** Woken with the run key + address at each delivery, and 'closed:<run>' when a run goes. */
  readonly #arrivals = new EventEmitter().setMaxListeners(0);
  readonly #journal: Journal | undefined;
  readonly #shared: boolean;
  readonly #log: (line: string) => void;

  constructor(options: StoreOptions) {
    this.#journal = options.journal;
    this.#shared = options.shared;
    this.#log = options.log ?? (() => undefined);
  }

  /** Takes back what the journal holds, forgetting runs past their retention. */
  async restore(): Promise<number> {
    for (const stored of (await this.#journal?.load()) ?? []) this.#adopt(stored);
    await this.sweep();
    return this.#runs.size;
  }

  async openRun(publicBase: string): Promise<RunRecord> {
    const record: RunRecord = { key: newKey(), openedAt: Date.now(), publicBase };
    if (this.#runs.size >= LIMITS.maxRuns) {
      const [oldest] = [...this.#runs.values()].sort((a, b) => a.openedAt - b.openedAt);
      if (oldest !== undefined)
        await this.closeRun(oldest.key, `forgotten: ${LIMITS.maxRuns} runs were open`);
    }
    await this.#journal?.openRun(record);
    this.#runs.set(record.key, newRun(record));
    this.#log(`${runLabel(record.key)} opened, webhooks under ${record.publicBase} (${this.#openRuns()})`);
    return record;
  }

  /** A new address of the run; with `refuseFirst`, the answer says so (a receiver that ignores it says nothing). */
  async register(
    runKey: string,
    options: AddressOptions = {},
  ): Promise<{ path: string; url: string; refuseFirst?: number }> {
    const run = this.#run(runKey);
    if (run.addresses.size >= LIMITS.maxAddressesPerRun)
      throw new StoreRefusal(429, `a run registers at most ${LIMITS.maxAddressesPerRun} addresses`);
    const path = `/${newKey()}`;
    const entry = {
      path,
      registeredSeq: this.#lastSeq,
      straysBefore: run.strayCount,
      unattributedBefore: this.#unattributedCount,
      ...(options.refuseFirst === undefined ? {} : { refuseFirst: options.refuseFirst }),
      ...(options.whole === true ? { tail: ADDRESS_TAIL } : {}),
    };
    await this.#journal?.append(run.key, { type: 'address', ...entry });
    this.#addAddress(run, entry);
    return {
      path,
      url: `${run.publicBase}${path}${entry.tail ?? ''}`,
      ...(options.refuseFirst === undefined ? {} : { refuseFirst: options.refuseFirst }),
    };
  }

  /**
   * The status to answer a complete POST to `location` with instead of 200, once per address that asked
   * for it (see AddressOptions); taken now, synchronously, so that of two requests at once only one gets it.
   */
  takeRefusal(location: Location): number | undefined {
    if (location.kind !== 'address') return undefined;
    const address = this.#runs.get(location.run)?.addresses.get(location.address);
    if (address?.refuseFirst === undefined || address.refused) return undefined;
    address.refused = true;
    return address.refuseFirst;
  }

  /**
   * The address a request target (path and query) is a delivery to, the run it is a stray of, or
   * neither. A delivery counts only at exactly the address's URL, its tail and query included, or at
   * it under the run's public prefix (a tunnel may keep the prefix or strip it); anything else naming
   * an address is a stray of that address's run.
   */
  locate(target: string): Location {
    const path = target.split('?', 1)[0] ?? '';
    const hex = ADDRESS_IN_PATH.exec(path)?.[1]?.toLowerCase();
    const address = hex === undefined ? undefined : `/${hex}`;
    const runKey = address === undefined ? undefined : this.#owners.get(address);
    const run = runKey === undefined ? undefined : this.#runs.get(runKey);
    if (run === undefined || address === undefined) return { kind: 'unattributed' };
    const tail = run.addresses.get(address)?.tail ?? '';
    // A bare address is matched on its path, as ever; one registered whole on its path and query.
    const asked = tail === '' ? path : normalTarget(target);
    const exact = asked === `${address}${tail}` || asked === `${run.prefix}${address}${tail}`;
    return exact ? { kind: 'address', run: run.key, address } : { kind: 'run-stray', run: run.key };
  }

  /**
   * Keeps a request where `location` says, on disk first when there is a journal, and wakes the
   * address's waiters. Rejects when the journal cannot write: the request must then not be
   * acknowledged. A location whose run went meanwhile makes it a stray of no run.
   */
  async record(location: Location, arrival: Omit<Delivery, 'seq'>): Promise<Delivery> {
    const delivery: Delivery = { seq: ++this.#lastSeq, ...arrival };
    const run = location.kind === 'unattributed' ? undefined : this.#runs.get(location.run);
    const path = location.kind === 'address' ? location.address : undefined;
    const address = path === undefined ? undefined : run?.addresses.get(path);
    if (run === undefined || (path !== undefined && address === undefined)) {
      this.#keepUnattributed(metaOf(delivery));
    } else if (path === undefined || address === undefined) {
      const stray = metaOf(delivery);
      if (run.strays.length < LIMITS.maxStraysPerRun)
        await this.#journal?.append(run.key, { type: 'stray', stray });
      this.#keepStray(run, stray);
    } else {
      const keep =
        address.deliveries.length < LIMITS.maxDeliveriesPerAddress &&
        run.kept < LIMITS.maxDeliveriesPerRun &&
        this.#kept < LIMITS.maxDeliveries;
      if (keep) {
        await this.#journal?.append(run.key, { type: 'delivery', address: path, delivery });
        // A run closed while this was written is gone with what it received.
        if (this.#runs.get(run.key) === run) this.#keepDelivery(run, address, delivery);
      } else address.notKept++;
      this.#arrivals.emit(`${run.key}${path}`);
    }
    return delivery;
  }

  /** What arrived at one of the run's addresses, and the strays the run may see since it was registered. */
  report(runKey: string, path: string): AddressReport {
    const run = this.#run(runKey);
    const address = this.#address(run, path);
    const deliveries = address.deliveries.slice(0, LIMITS.listedDeliveries);
    return {
      deliveries,
      unlistedDeliveries: address.deliveries.length + address.notKept - deliveries.length,
      strays: this.#straysSince(run, address),
    };
  }

  /**
   * Resolves once a delivery to the address was answered 2xx (with `until: 'attempt'`, once any request
   * to it was kept, whatever its outcome) and `graceMs` more passed (to catch duplicates), or after
   * `timeoutMs`, or when the run or the store closes, or `signal` aborts.
   */
  waitFor(
    runKey: string,
    path: string,
    {
      timeoutMs,
      graceMs,
      signal,
      until = 'delivery',
    }: { timeoutMs: number; graceMs: number; signal: AbortSignal; until?: WaitUntil },
  ): Promise<void> {
    const run = this.#run(runKey);
    const address = this.#address(run, path);
    const event = `${run.key}${path}`;
    const closed = `closed:${run.key}`;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (): void => {
        clearTimeout(timer);
        this.#arrivals.off(event, startGrace).off(closed, settle).off('closed', settle);
        signal.removeEventListener('abort', settle);
        resolve();
      };
      const startGrace = (): void => {
        const first = until === 'attempt' ? address.deliveries[0] : address.deliveries.find(isDelivered);
        if (first === undefined) return;
        this.#arrivals.off(event, startGrace);
        clearTimeout(timer);
        timer = setTimeout(settle, Math.max(0, first.receivedAt + graceMs - Date.now()));
      };
      this.#arrivals.on(event, startGrace).once(closed, settle).once('closed', settle);
      signal.addEventListener('abort', settle, { once: true });
      timer = setTimeout(settle, timeoutMs);
      startGrace();
    });
  }

  /** Forgets a run and all it received, ending its waits; removing it from disk before it is gone. */
  async closeRun(runKey: string, why = 'closed by its suite run'): Promise<void> {
    const run = this.#run(runKey);
    this.#runs.delete(run.key);
    for (const path of run.addresses.keys()) this.#owners.delete(path);
    this.#kept -= run.kept;
    this.#arrivals.emit(`closed:${run.key}`);
    await this.#journal?.dropRun(run.key);
    this.#log(
      `${runLabel(run.key)} ${why}: ${run.addresses.size} addresses, ${run.kept} requests kept (${this.#openRuns()})`,
    );
  }

  #openRuns(): string {
    return `${this.#runs.size} ${this.#runs.size === 1 ? 'run' : 'runs'} open`;
  }

  /** Forgets the runs past their retention. */
  async sweep(): Promise<void> {
    const expired = [...this.#runs.values()].filter(
      (run) => run.openedAt + LIMITS.runRetentionMs <= Date.now(),
    );
    for (const run of expired) await this.closeRun(run.key, 'forgotten: opened 24 h ago and never closed');
  }

  /** Ends every pending wait with what arrived so far, so no timer outlives the receiver. */
  async close(): Promise<void> {
    this.#arrivals.emit('closed');
    await this.#journal?.close();
  }

  #run(runKey: string): Run {
    const run = UNGUESSABLE.test(runKey) ? this.#runs.get(runKey) : undefined;
    if (run === undefined)
      throw new StoreRefusal(404, 'no such run: it was closed, or forgotten after the retention time');
    return run;
  }

  #address(run: Run, path: string): Address {
    const address = run.addresses.get(path);
    if (address === undefined) throw new StoreRefusal(404, `no address ${path} in this run`);
    return address;
  }

  #addAddress(
    run: Run,
    entry: Omit<Address, 'deliveries' | 'notKept' | 'refused' | 'refuseFirst' | 'tail'> & {
      path: string;
      refuseFirst?: number;
      tail?: string;
    },
  ): void {
    const { path, refuseFirst, tail = '', ...counters } = entry;
    run.addresses.set(path, {
      ...counters,
      refuseFirst,
      tail,
      refused: false,
      deliveries: [],
      notKept: 0,
    });
    this.#owners.set(path, run.key);
  }

  #keepDelivery(run: Run, address: Address, delivery: Delivery): void {
    address.deliveries.push(delivery);
    // Taken back from the journal: a refusal given before a restart is not given again.
    if (delivery.outcome === 'declined') address.refused = true;
    run.kept++;
    this.#kept++;
    this.#lastSeq = Math.max(this.#lastSeq, delivery.seq);
  }

  #keepStray(run: Run, stray: DeliveryMeta): void {
    run.strayCount++;
    if (run.strays.length < LIMITS.maxStraysPerRun) run.strays.push(stray);
    this.#lastSeq = Math.max(this.#lastSeq, stray.seq);
  }

  #keepUnattributed(stray: DeliveryMeta): void {
    this.#unattributedCount++;
    this.#unattributed.push(stray);
    // The newest are kept: shifting an array of this size costs microseconds, even on every request of a flood.
    if (this.#unattributed.length > LIMITS.maxUnattributedStrays) this.#unattributed.shift();
  }

  #straysSince(run: Run, address: Address): StrayReport {
    const after = (d: DeliveryMeta): boolean => d.seq > address.registeredSeq;
    const own = run.strays.filter(after);
    const ownTotal = Math.max(own.length, run.strayCount - address.straysBefore);
    const elsewhere = Math.max(0, this.#unattributedCount - address.unattributedBefore);
    if (this.#shared)
      return { listed: own.slice(0, LIMITS.listedStrays), total: ownTotal, unlisted: elsewhere };
    const listed = [...own, ...this.#unattributed.filter(after)]
      .sort((a, b) => a.seq - b.seq)
      .slice(0, LIMITS.listedStrays);
    return { listed, total: ownTotal + elsewhere, unlisted: 0 };
  }

  #adopt(stored: StoredRun): void {
    const run = newRun(stored.run);
    this.#runs.set(run.key, run);
    for (const entry of stored.entries) {
      if (entry.type === 'address') {
        this.#addAddress(run, entry);
        this.#lastSeq = Math.max(this.#lastSeq, entry.registeredSeq);
      } else if (entry.type === 'stray') this.#keepStray(run, entry.stray);
      else {
        const address = run.addresses.get(entry.address);
        if (address !== undefined) this.#keepDelivery(run, address, entry.delivery);
      }
    }
  }
}

function newRun(record: RunRecord): Run {
  // The path part of the public base, without a trailing slash: '' for 'https://hooks.example'.
  const prefix = new URL(record.publicBase).pathname.replace(/\/+$/, '');
  return { ...record, prefix, addresses: new Map(), strays: [], strayCount: 0, kept: 0 };
}

/** What is kept of a stray: the request without its headers and body. */
function metaOf(d: Delivery): DeliveryMeta {
  return {
    seq: d.seq,
    path: d.path,
    method: d.method,
    contentType: d.contentType,
    bodyBytes: d.bodyBytes,
    declaredBytes: d.declaredBytes,
    receivedAt: d.receivedAt,
    answeredStatus: d.answeredStatus,
    outcome: d.outcome,
    clientCertificate: d.clientCertificate,
  };
}
