import type { Granted } from "./shared_window.ts";
import type { WindowLimiter, WindowResult } from "./types.ts";

/** A shared window that counts several requests at once (`shared_window.ts`). */
export interface CountingWindow {
  count(identifier: string, rate: number): Promise<Granted>;
}

/**
 * How long leased requests may be spent. The store counted them when it leased them, so a lease
 * spent later than this would be counted in a window it was not spent in.
 */
export const LEASE_MS = 2_000;

/** Leases held at most; past it the expired ones are dropped. */
const MAX_LEASED = 10_000;

interface Lease {
  /** Requests still to be spent. */
  left: number;
  /** What the store left the bucket after it leased them. */
  remaining: number;
  limit: number;
  reset: number;
  expires: number;
  /** Requests it leased. */
  size: number;
}

/**
 * Leases requests of each bucket's budget from the shared store a few at a time, so a busy caller
 * waits for the store about once per lease instead of once per request, and no instance spends
 * more than it leased. A lease asks for one request at first and twice as many each time the last
 * was spent before it expired, up to `maxLease`; one that expires unspent halves the next, and what
 * it left goes back to the store with it. A caller's `remaining` falls by one per request; the
 * requests an instance holds unspent count against the caller in the others (on the platform each
 * function is an instance of its own) until they go back or leave the window.
 */
export class LeasedWindow implements WindowLimiter {
  readonly #leases = new Map<string, Lease>();
  /** Leases being asked for: a bucket's concurrent requests wait for the one in flight. */
  readonly #asking = new Map<string, Promise<WindowResult>>();

  constructor(
    readonly store: CountingWindow,
    readonly maxLease: number,
    readonly clock: () => number = Date.now,
  ) {}

  async limit(identifier: string): Promise<WindowResult> {
    while (true) {
      const lease = this.#leases.get(identifier);
      if (lease && lease.left > 0 && lease.expires > this.clock()) {
        lease.left--;
        const { limit, reset } = lease;
        return { success: true, limit, remaining: lease.remaining + lease.left, reset };
      }
      const asking = this.#asking.get(identifier);
      if (asking) {
        const answer = await asking;
        // A refused bucket stays refused for everyone who waited on it.
        if (!answer.success) return answer;
        continue;
      }
      const request = this.#lease(identifier, lease);
      this.#asking.set(identifier, request);
      try {
        const answer = await request;
        if (!answer.success) return answer;
      } finally {
        this.#asking.delete(identifier);
      }
    }
  }

  async #lease(identifier: string, last: Lease | undefined): Promise<WindowResult> {
    const size = !last ? 1 : last.left > 0
      ? Math.max(1, Math.floor(last.size / 2))
      // Spent within its time: twice as many, but a quarter of what the store had left at most,
      // so that near a budget's end instances hold little the others are then refused.
      : Math.min(this.maxLease, last.size * 2, Math.max(1, Math.floor(last.remaining / 4)));
    // Still in the store's window the lease was counted in (it ends at the lease's `reset`).
    if (last && last.left > 0 && this.clock() < last.reset) {
      // Sent first, in the same round trip: the lease and the caller's remaining count without
      // them. Counted in an earlier window, they could only be taken from the wrong one. Given
      // back once, whatever becomes of the lease asked for next.
      this.store.count(identifier, -last.left).catch(() => {});
      this.#leases.delete(identifier);
    }
    const answer = await this.store.count(identifier, size);
    if (!answer.success) {
      this.#leases.delete(identifier);
      return answer;
    }
    // Near the window's end the store grants what it has left, fewer than asked.
    const granted = answer.granted;
    if (this.#leases.size >= MAX_LEASED) this.#sweep();
    this.#leases.set(identifier, {
      left: granted,
      remaining: answer.remaining,
      limit: answer.limit,
      reset: answer.reset,
      expires: this.clock() + LEASE_MS,
      size: granted,
    });
    return answer;
  }

  #sweep(): void {
    const now = this.clock();
    for (const [identifier, lease] of this.#leases) {
      if (lease.expires <= now) this.#leases.delete(identifier);
    }
    if (this.#leases.size >= MAX_LEASED) this.#leases.clear();
  }
}
