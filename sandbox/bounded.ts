/** Collections that keep their newest entries only, so no client can grow the simulator without end. */

/** Bytes held by several lists at once (every namespace's journal), and the most they may hold together. */
export class ByteBudget {
  used = 0;
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }
}

export interface ByteBound<T> {
  /** About how many bytes an entry holds. */
  readonly sizeOf: (item: T) => number;
  /** The list's own bound. */
  readonly maxBytes: number;
  /** A bound it shares with other lists; past it, this list drops its own oldest entries. */
  readonly shared?: ByteBudget;
}

/**
 * A list that keeps its newest `max` entries, and with a byte bound its newest that fit, always the
 * newest one; it counts those it dropped.
 */
export class Bounded<T> {
  private items: T[] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;
  dropped = 0;

  private readonly max: number;
  private readonly bound: ByteBound<T> | undefined;

  constructor(max: number, bound?: ByteBound<T>) {
    this.max = max;
    this.bound = bound;
  }

  push(item: T): void {
    const size = this.bound?.sizeOf(item) ?? 0;
    this.items.push(item);
    this.sizes.push(size);
    this.account(size);
    while (this.items.length - this.head > 1 && this.over()) this.dropOldest();
    // The dropped head is cut off once it is as long as what is kept: amortised constant time.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
  }

  /** The entries kept, oldest first, with the count dropped. */
  snapshot(): { items: T[]; dropped: number } {
    return { items: this.items.slice(this.head), dropped: this.dropped };
  }

  /** Forgets every entry, and gives their bytes back to the shared budget. */
  clear(): void {
    this.account(-this.bytes);
    this.items = [];
    this.sizes = [];
    this.head = 0;
    this.dropped = 0;
  }

  private over(): boolean {
    if (this.items.length - this.head > this.max) return true;
    const bound = this.bound;
    if (bound === undefined) return false;
    return (
      this.bytes > bound.maxBytes || (bound.shared !== undefined && bound.shared.used > bound.shared.max)
    );
  }

  private dropOldest(): void {
    this.account(-(this.sizes[this.head] ?? 0));
    // Let go of it now: a dropped entry must not hold its bytes until the next compaction.
    this.items[this.head] = undefined as T;
    this.head += 1;
    this.dropped += 1;
  }

  private account(bytes: number): void {
    this.bytes += bytes;
    if (this.bound?.shared !== undefined) this.bound.shared.used += bytes;
  }
}

/**
 * A Map that forgets its oldest key past `max`. The keys' order is kept beside it: a Map's own
 * iterator walks past every key deleted before it, so finding the oldest there grows with the deletions.
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  private order: K[] = [];
  private head = 0;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  set(key: K, value: V): void {
    if (!this.map.has(key)) this.order.push(key);
    this.map.set(key, value);
    if (this.map.size <= this.max) return;
    this.map.delete(this.order[this.head] as K);
    this.head += 1;
    if (this.head >= this.max) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}
