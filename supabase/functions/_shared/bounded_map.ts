/**
 * A map of bounded weight, each entry kept until its own expiry: what a process remembers about
 * callers (keys, addresses, buckets, verified tokens) without letting a flood of new ones grow it.
 * An entry weighs 1 unless it is given a weight (its size in bytes, say); past the capacity the
 * entry set longest ago goes first, and one heavier than the whole capacity is not kept.
 *
 * @example
 * ```ts
 * const refused = new BoundedMap<string, string>(10_000);
 * refused.set("key", "Invalid API Key", { until: Date.now() + 60_000 });
 * refused.get("key"); // "Invalid API Key", for a minute
 * ```
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, { value: V; until: number; weight: number }>();
  #weight = 0;

  constructor(readonly capacity: number, readonly clock: () => number = Date.now) {}

  /** The value set for `key`, or undefined when none was or it expired. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > this.clock()) return entry.value;
    this.delete(key);
    return undefined;
  }

  /**
   * Sets `key` to `value` until the time `until` (milliseconds, as the clock gives them; never
   * expires when absent), weighing `weight` (1 when absent), making room by dropping the oldest.
   */
  set(key: K, value: V, { until = Infinity, weight = 1 }: { until?: number; weight?: number }) {
    this.delete(key);
    if (weight > this.capacity) return;
    while (this.#weight + weight > this.capacity) {
      this.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, { value, until, weight });
    this.#weight += weight;
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }

  /** How many entries are held, expired ones not yet dropped included. */
  get size(): number {
    return this.#entries.size;
  }

  /** The weight of the entries held, together. */
  get weight(): number {
    return this.#weight;
  }
}
