/** Collections that keep their newest entries only, so no client can grow the simulator without end. */

/** A list that keeps its newest `max` entries and counts those it dropped. */
export class Bounded<T> {
  items: T[] = [];
  dropped = 0;

  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.max * 1.1) {
      const excess = this.items.length - this.max;
      this.items.splice(0, excess);
      this.dropped += excess;
    }
  }

  /** The newest `max` entries, with the count dropped. */
  snapshot(): { items: T[]; dropped: number } {
    const excess = Math.max(0, this.items.length - this.max);
    return { items: this.items.slice(excess), dropped: this.dropped + excess };
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
