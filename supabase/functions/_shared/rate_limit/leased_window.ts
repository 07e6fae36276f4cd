import type { WindowLimiter, WindowResult } from "./types.ts";

/** Takes `rate` requests of an identifier's budget from the shared store at once. */
export type TakeFromStore = (identifier: string, rate: number) => Promise<WindowResult>;

/**
 * How long a refusal by the store is repeated here without asking it again: a caller over budget
 * costs the store one call a second, not one a request.
 */
const REFUSAL_MEMO_MS = 1_000;
/** Leases kept at most; past this the oldest is dropped (its unused requests are lost). */
const MAX_LEASES = 10_000;

/** Requests of one identifier's budget taken from the store and not yet used. */
interface Lease {
  left: number;
  /** What the store said remained after the last take. */
  storeRemaining: number;
  /** When the store's current window ends: what is left of the lease is dropped then. */
  reset: number;
  /** A take under way, started ahead of need. */
  taking: Promise<void> | null;
  /** The store refused a take: refused here without asking until then. */
  refusedUntil: number;
}

/**
 * A shared sliding window used through leases: each instance takes `leaseSize` requests of an
 * identifier's budget at a time and hands them out without a round trip, taking the next lease
 * ahead, while the current one still has half its requests. The store counts every lease as spent
 * when it is taken, so instances together never allow more than the budget; what an instance leaves
 * unused is lost at the end of the window (or when the instance ends), never handed out twice.
 */
export class LeasedWindow implements WindowLimiter {
  readonly #leases = new Map<string, Lease>();

  constructor(
    readonly take: TakeFromStore,
    readonly tokens: number,
    readonly leaseSize: number,
  ) {}

  async limit(identifier: string): Promise<WindowResult> {
    let lease = this.#current(identifier);
    if (lease?.taking && lease.left === 0) {
      await lease.taking;
      lease = this.#current(identifier);
    }
    if (lease && lease.left > 0) {
      lease.left--;
      if (lease.left < this.leaseSize / 2 && !lease.taking && lease.refusedUntil <= Date.now()) {
        // Errors are the next foreground take's to report: this one only saves a wait.
        this.#track(lease, this.#takeInto(identifier, lease));
      }
      return this.#allowed(lease);
    }
    if (lease && lease.refusedUntil > Date.now()) return this.#refused(lease.reset);
    lease ??= this.#keep(identifier);
    const taking = this.#takeInto(identifier, lease);
    this.#track(lease, taking);
    await taking; // a store that fails is the caller's to handle
    if (lease.left === 0) return this.#refused(lease.reset);
    lease.left--;
    return this.#allowed(lease);
  }

  /** Marks `lease` as being refilled by `taking`, so other requests wait for it, not take again. */
  #track(lease: Lease, taking: Promise<void>): void {
    const tracked: Promise<void> = taking.catch(() => {}).finally(() => {
      if (lease.taking === tracked) lease.taking = null;
    });
    lease.taking = tracked;
  }

  /** Takes a lease from the store into `lease`; near the end of a budget, a single request. */
  async #takeInto(identifier: string, lease: Lease): Promise<void> {
    let taken = await this.take(identifier, this.leaseSize);
    let rate = this.leaseSize;
    if (!taken.success && rate > 1) {
      taken = await this.take(identifier, 1);
      rate = 1;
    }
    if (lease.reset !== taken.reset) lease.left = 0; // the window changed: the old lease is gone
    lease.reset = taken.reset;
    lease.storeRemaining = taken.remaining;
    if (taken.success) lease.left += rate;
    else lease.refusedUntil = Math.min(taken.reset, Date.now() + REFUSAL_MEMO_MS);
  }

  #current(identifier: string): Lease | undefined {
    const lease = this.#leases.get(identifier);
    if (lease && Date.now() >= lease.reset && !lease.taking) {
      this.#leases.delete(identifier);
      return undefined;
    }
    return lease;
  }

  /** A new, empty lease for `identifier`, kept (the oldest dropped past MAX_LEASES). */
  #keep(identifier: string): Lease {
    const lease: Lease = { left: 0, storeRemaining: 0, reset: 0, taking: null, refusedUntil: 0 };
    this.#leases.set(identifier, lease);
    if (this.#leases.size > MAX_LEASES) {
      const oldest = this.#leases.keys().next().value;
      if (oldest !== undefined) this.#leases.delete(oldest);
    }
    return lease;
  }

  #allowed(lease: Lease): WindowResult {
    return {
      success: true,
      limit: this.tokens,
      remaining: lease.storeRemaining + lease.left,
      reset: lease.reset,
    };
  }

  #refused(reset: number): WindowResult {
    return { success: false, limit: this.tokens, remaining: 0, reset };
  }
}
