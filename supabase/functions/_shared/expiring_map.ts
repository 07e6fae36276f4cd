/**
 * A map of at most `capacity` entries, each kept until its own expiry: what a process remembers
 * about callers (keys, addresses, buckets) without letting a flood of new ones grow it. Past the
 * capacity, the entry set longest ago goes first.
 *
 * @example
 * ```ts
 * const refused = new ExpiringMap<string, string>(10_000);
 * refused.set("key", "Invalid API Key", Date.now() + 60_000);
 * refused.get("key"); // "Invalid API Key", for a minute
 * ```
 */
export class ExpiringMap<K, V> {
  readonly #entries = new Map<K, { value: V; until: number }>();

  constructor(readonly capacity: number, readonly clock: () => number = Date.now) {}

  /** The value set for `key`, or undefined when none was or it expired. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > this.clock()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Sets `key` to `value` until the time `until` (milliseconds, as the clock gives them). */
  set(key: K, value: V, until: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.capacity) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, { value, until });
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** How many entries are held, expired ones not yet dropped included. */
  get size(): number {
    return this.#entries.size;
  }
}
