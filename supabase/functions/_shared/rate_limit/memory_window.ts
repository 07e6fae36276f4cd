import type { WindowResult } from "./buckets.ts";

/**
 * A sliding window kept in this process, for the paths that count per instance: @upstash/ratelimit's
 * arithmetic (tests/rate_limit_window_test.ts holds them to the same verdicts): the previous fixed
 * window's count, weighted by how much of it still overlaps, plus the current one's.
 */
export class MemoryWindow {
  readonly #counts = new Map<string, number>();
  #lastSweep = 0;

  constructor(readonly tokens: number, readonly windowMs: number) {}

  limit(identifier: string, now = Date.now()): Promise<WindowResult> {
    this.#sweep(now);
    const current = Math.floor(now / this.windowMs);
    const currentKey = `${identifier}:${current}`;
    const inCurrent = this.#counts.get(currentKey) ?? 0;
    const inPrevious = this.#counts.get(`${identifier}:${current - 1}`) ?? 0;
    const weightedPrevious = Math.floor((1 - (now % this.windowMs) / this.windowMs) * inPrevious);
    const reset = (current + 1) * this.windowMs;
    if (weightedPrevious + inCurrent >= this.tokens) {
      return Promise.resolve({ success: false, limit: this.tokens, remaining: 0, reset });
    }
    this.#counts.set(currentKey, inCurrent + 1);
    const remaining = Math.max(0, this.tokens - (inCurrent + 1 + weightedPrevious));
    return Promise.resolve({ success: true, limit: this.tokens, remaining, reset });
  }

  /** Drops windows older than the previous one, at most once per window. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.windowMs) return;
    this.#lastSweep = now;
    const oldest = Math.floor(now / this.windowMs) - 1;
    for (const key of this.#counts.keys()) {
      const window = Number(key.slice(key.lastIndexOf(":") + 1));
      if (window < oldest) this.#counts.delete(key);
    }
  }
}
