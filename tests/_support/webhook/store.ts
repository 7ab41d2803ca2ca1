/**
 * What the webhook receiver heard: the registered addresses and every delivery, in arrival order,
 * with event-driven waiting for the first delivery to an address.
 */
import { EventEmitter } from 'node:events';

export interface Delivery {
  /** Arrival order, from 1. */
  readonly seq: number;
  /** Request path without the query, as received. */
  readonly path: string;
  readonly method: string;
  /** Lower-case names, secrets masked. */
  readonly headers: Record<string, string>;
  /** UTF-8 text of at most the first 64 KiB (`truncated` says when more came), secrets masked. */
  readonly body: string;
  /** Bytes actually received. */
  readonly bodyBytes: number;
  readonly truncated: boolean;
  /** Epoch ms when the body completed, or when the request was refused or aborted. */
  readonly receivedAt: number;
  /** The status we answered; null when the sender aborted first. */
  readonly answeredStatus: number | null;
  readonly outcome: 'matched' | 'stray' | 'too-large' | 'aborted';
}

export type Arrival = Omit<Delivery, 'seq'>;

interface Kept {
  readonly delivery: Delivery;
  /** The registered address it was attributed to; undefined for a stray. */
  readonly address: string | undefined;
}

/**
 * Memory bound: at most 10,000 deliveries are kept, each with at most 64 KiB of body and Node's
 * 16 KiB of headers, so never more than about 800 MiB even under a flood (real webhooks of a few
 * hundred bytes make it a few MiB). Past the bound the oldest stray goes first, and only when no
 * stray is left the oldest delivery to a registered address.
 */
export const MAX_KEPT_DELIVERIES = 10_000;

/** Paths start with '/', so this event name cannot collide with an address. */
const CLOSED = 'closed';

export class DeliveryStore {
  #lastSeq = 0;
  /** Each registered address with the last seq before it was registered, to tell later strays apart. */
  readonly #registered = new Map<string, number>();
  readonly #kept: Kept[] = [];
  readonly #arrivals = new EventEmitter().setMaxListeners(0);

  register(address: string): void {
    this.#registered.set(address, this.#lastSeq);
  }

  isRegistered(address: string): boolean {
    return this.#registered.has(address);
  }

  /** Stores an arrival, attributed to `address` (undefined for a stray), and wakes its waiters. */
  record(arrival: Arrival, address: string | undefined): Delivery {
    const delivery: Delivery = { seq: ++this.#lastSeq, ...arrival };
    if (this.#kept.length >= MAX_KEPT_DELIVERIES) {
      const oldestStray = this.#kept.findIndex((kept) => kept.address === undefined);
      this.#kept.splice(Math.max(oldestStray, 0), 1);
    }
    this.#kept.push({ delivery, address });
    if (address !== undefined) this.#arrivals.emit(address, delivery);
    return delivery;
  }

  deliveriesFor(address: string): Delivery[] {
    return this.#kept.filter((kept) => kept.address === address).map((kept) => kept.delivery);
  }

  strays(): Delivery[] {
    return this.#kept.filter((kept) => kept.address === undefined).map((kept) => kept.delivery);
  }

  /** Strays that arrived after `address` was registered: where a provider may have posted instead. */
  straysSince(address: string): Delivery[] {
    const registeredAfter = this.#registered.get(address) ?? this.#lastSeq;
    return this.strays().filter((delivery) => delivery.seq > registeredAfter);
  }

  all(): Delivery[] {
    return this.#kept.map((kept) => kept.delivery);
  }

  /**
   * Resolves once the first delivery to `address` arrived and `graceMs` more passed (to catch
   * duplicates), with every delivery to it; with [] when none arrived within `timeoutMs`.
   */
  waitFor(
    address: string,
    { timeoutMs, graceMs }: { timeoutMs: number; graceMs: number },
  ): Promise<Delivery[]> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (deliveries: Delivery[]): void => {
        clearTimeout(timer);
        this.#arrivals.off(address, startGrace).off(CLOSED, settleWithArrived);
        resolve(deliveries);
      };
      const settleWithArrived = (): void => {
        settle(this.deliveriesFor(address));
      };
      const startGrace = (first: Delivery): void => {
        this.#arrivals.off(address, startGrace);
        clearTimeout(timer);
        timer = setTimeout(settleWithArrived, Math.max(0, first.receivedAt + graceMs - Date.now()));
      };

      this.#arrivals.once(CLOSED, settleWithArrived);
      const [earlier] = this.deliveriesFor(address);
      if (earlier !== undefined) {
        startGrace(earlier);
        return;
      }
      this.#arrivals.once(address, startGrace);
      timer = setTimeout(() => {
        settle([]);
      }, timeoutMs);
    });
  }

  /** Ends every pending wait with what arrived so far, so no timer outlives the receiver. */
  close(): void {
    this.#arrivals.emit(CLOSED);
  }
}
