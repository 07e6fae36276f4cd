/**
 * A map that holds at most `maxBytes` of entries, by the size each is given when set; the oldest
 * entries go first when a new one needs room, and one larger than the whole cap is not kept.
 */
export class ByteCappedCache<K, V> {
  readonly #entries = new Map<K, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** The bytes the kept entries were given, together. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  /** Keeps `value` as `bytes` large, making room by dropping the oldest entries. */
  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    while (this.#bytes + bytes > this.maxBytes) {
      const [oldest] = this.#entries.keys();
      this.delete(oldest!);
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
  }
}
