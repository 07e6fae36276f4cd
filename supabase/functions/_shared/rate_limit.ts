import { sha256Hex } from "./sha256.ts";
import { Redis } from "@upstash/redis";
import { env } from "./env.ts";
import { log } from "./log.ts";
import { LeasedWindow } from "./rate_limit/leased_window.ts";
import { MemoryWindow } from "./rate_limit/memory_window.ts";
import { RedisTcp } from "./rate_limit/redis_tcp.ts";
import { type ScriptRunner, SharedWindow } from "./rate_limit/shared_window.ts";
import type { WindowResult } from "./rate_limit/types.ts";

export type { WindowResult } from "./rate_limit/types.ts";

/** The spec's rate buckets: which kind of caller a request counts against. */
export type BucketKind = "api_key" | "jwt" | "service" | "ip";

/** Requests allowed per 60-second sliding window, per bucket kind. */
export const bucketLimits: Readonly<Record<BucketKind, number>> = {
  api_key: 120,
  jwt: 240,
  service: 600,
  ip: 30,
};

const WINDOW_MS = 60_000;
/** Longest a call to the shared store may take before the in-process window decides instead. */
const STORE_TIMEOUT_MS = 1_000;
/** After the shared store fails, how long to use the in-process window before trying it again. */
const STORE_RETRY_MS = 5_000;

function sharedStore(): ScriptRunner | null {
  if (env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) {
    return new Redis({
      url: env.UPSTASH_REDIS_REST_URL,
      token: env.UPSTASH_REDIS_REST_TOKEN,
      // By default @upstash/redis retries a failed fetch 5 times over about 4 s and waits for an
      // answer without limit; a request must not wait on the limiter that long. A signal given
      // as a function makes a timeout throw (a plain signal is turned into a made-up result).
      retry: { retries: 0 },
      signal: () => AbortSignal.timeout(STORE_TIMEOUT_MS),
      enableTelemetry: false,
    });
  }
  if (env.REDIS_URL) return new RedisTcp(env.REDIS_URL, STORE_TIMEOUT_MS);
  return null;
}

/**
 * Sliding windows per bucket kind in the shared store, leased a few requests at a time
 * (`LeasedWindow`), with in-process windows that count every request too. While the store is
 * unreachable (logged once per outage) the in-process windows decide alone, so requests keep being
 * served; once it returns, a caller refused by either is refused, so a store that comes back empty
 * does not hand out a second budget. The in-process count of one process never exceeds the shared
 * count of all, so it refuses no one early.
 */
class BucketLimiter {
  readonly #shared: Record<BucketKind, LeasedWindow> | null;
  readonly #local: Record<BucketKind, MemoryWindow>;
  /**
   * This instance's share of each budget, which decides alone while the store is away (or when
   * there is none): N instances together never allow more than the budget once.
   */
  readonly #share: Record<BucketKind, MemoryWindow>;
  #storeDownUntil = 0;

  constructor(store: ScriptRunner | null, prefix: string, instances: number) {
    this.#local = mapKinds((kind) => new MemoryWindow(bucketLimits[kind], WINDOW_MS));
    this.#share = mapKinds((kind) =>
      new MemoryWindow(instanceShare(bucketLimits[kind], instances), WINDOW_MS)
    );
    this.#shared = store
      ? mapKinds((kind) =>
        new LeasedWindow(
          new SharedWindow(store, `${prefix}:${kind}`, bucketLimits[kind], WINDOW_MS),
          largestLease(bucketLimits[kind]),
        )
      )
      : null;
  }

  async limit(kind: BucketKind, identifier: string): Promise<WindowResult> {
    if (this.#shared && Date.now() >= this.#storeDownUntil) {
      try {
        const shared = await this.#shared[kind].limit(identifier);
        if (this.#storeDownUntil !== 0) {
          this.#storeDownUntil = 0;
          log.warn("rate_limit_store_recovered", {});
        }
        if (!shared.success) return shared;
        const local = await this.#local[kind].limit(identifier);
        return local.success
          ? { ...shared, remaining: Math.min(shared.remaining, local.remaining) }
          : local;
      } catch (e) {
        if (this.#storeDownUntil === 0) {
          log.warn("rate_limit_store_unreachable", { reason: errorText(e) });
        }
        this.#storeDownUntil = Date.now() + STORE_RETRY_MS;
      }
    }
    // Counted in the full window too, so a store that comes back finds this spending there.
    const local = await this.#local[kind].limit(identifier);
    const share = await this.#share[kind].limit(identifier);
    return local.success ? share : local;
  }
}

/**
 * The most requests of a budget one lease takes: a thirtieth, so the leases instances hold unspent
 * keep little of a caller's budget from the others (an address's 30 are never leased ahead).
 */
export function largestLease(budget: number): number {
  return Math.max(1, Math.floor(budget / 30));
}

/** One instance's share of a budget: at least one request, never more than its part. */
export function instanceShare(budget: number, instances: number): number {
  return Math.max(1, Math.floor(budget / instances));
}

function mapKinds<T>(make: (kind: BucketKind) => T): Record<BucketKind, T> {
  return { api_key: make("api_key"), jwt: make("jwt"), service: make("service"), ip: make("ip") };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

const store = sharedStore();
if (!store) {
  log.warn("rate_limit_not_shared", {
    message: "No shared rate-limit store is configured (UPSTASH_REDIS_REST_URL and " +
      "UPSTASH_REDIS_REST_TOKEN, or REDIS_URL): every process counts its own budget, so N " +
      "processes allow N times each limit, and a restart starts every window afresh.",
  });
}
const instances = env.RATE_LIMIT_INSTANCES;
if (instances > 1) {
  log.warn("rate_limit_shares", {
    message: `While the shared store is unreachable${store ? "" : " (none is configured)"}, ` +
      `this instance allows 1/${instances} of each budget (RATE_LIMIT_INSTANCES=${instances}).`,
  });
}
const sharedLimiter = new BucketLimiter(store, env.RATE_LIMIT_PREFIX, instances);
const inProcessLimiter = new BucketLimiter(null, env.RATE_LIMIT_PREFIX, 1);

/**
 * Counts one request against a bucket; the identifier is hashed so no token reaches the store.
 * `in_process` keeps the window in this process only, for paths that must use no shared service.
 */
export async function consumeRateLimit(
  kind: BucketKind,
  identifier: string,
  store: "shared" | "in_process" = "shared",
): Promise<WindowResult> {
  const limiter = store === "shared" ? sharedLimiter : inProcessLimiter;
  return await limiter.limit(kind, sha256Hex(identifier));
}

/** The spec's rate-limit headers for a window result. */
export function rateLimitHeaders(result: WindowResult): Record<string, string> {
  const resetSeconds = Math.max(0, Math.ceil((result.reset - Date.now()) / 1000));
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(result.limit),
    "X-RateLimit-Remaining": String(result.remaining),
    "X-RateLimit-Reset": String(resetSeconds),
  };
  if (!result.success) headers["Retry-After"] = String(Math.max(1, resetSeconds));
  return headers;
}
