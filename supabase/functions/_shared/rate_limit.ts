import { sha256Hex } from "./sha256.ts";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { env } from "./env.ts";
import { log } from "./log.ts";
import { MemoryWindow } from "./rate_limit/memory_window.ts";
import { RedisTcp } from "./rate_limit/redis_tcp.ts";
import type { WindowLimiter, WindowResult } from "./rate_limit/types.ts";

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
/** After the shared store fails, how long to use the in-process window before trying it again. */
const STORE_RETRY_MS = 5_000;

type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]["redis"];

function sharedStore(): RatelimitRedis | null {
  if (env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) {
    return new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
  }
  if (env.REDIS_URL) {
    // RedisTcp provides the calls the sliding window makes (evalsha, eval, get, set) with the
    // same argument shapes; its types are narrower than @upstash/redis's generic signatures.
    return new RedisTcp(env.REDIS_URL) as unknown as RatelimitRedis;
  }
  return null;
}

/**
 * Sliding windows per bucket kind in the shared store, with in-process windows that take over
 * while the store is unreachable (logged once per outage) so requests keep being served.
 */
class BucketLimiter {
  readonly #shared: Record<BucketKind, WindowLimiter> | null;
  readonly #local: Record<BucketKind, MemoryWindow>;
  #storeDownUntil = 0;

  constructor(store: RatelimitRedis | null, prefix: string) {
    this.#local = mapKinds((kind) => new MemoryWindow(bucketLimits[kind], WINDOW_MS));
    this.#shared = store
      ? mapKinds((kind) =>
        new Ratelimit({
          redis: store,
          limiter: Ratelimit.slidingWindow(bucketLimits[kind], "60 s"),
          prefix: `${prefix}:${kind}`,
          ephemeralCache: false,
        })
      )
      : null;
  }

  async limit(kind: BucketKind, identifier: string): Promise<WindowResult> {
    if (this.#shared && Date.now() >= this.#storeDownUntil) {
      try {
        const result = await this.#shared[kind].limit(identifier);
        if (this.#storeDownUntil !== 0) {
          this.#storeDownUntil = 0;
          log.warn("rate_limit_store_recovered", {});
        }
        return result;
      } catch (e) {
        if (this.#storeDownUntil === 0) {
          log.warn("rate_limit_store_unreachable", { reason: errorText(e) });
        }
        this.#storeDownUntil = Date.now() + STORE_RETRY_MS;
      }
    }
    return await this.#local[kind].limit(identifier);
  }
}

function mapKinds<T>(make: (kind: BucketKind) => T): Record<BucketKind, T> {
  return { api_key: make("api_key"), jwt: make("jwt"), service: make("service"), ip: make("ip") };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

const sharedLimiter = new BucketLimiter(sharedStore(), env.RATE_LIMIT_PREFIX);
const inProcessLimiter = new BucketLimiter(null, env.RATE_LIMIT_PREFIX);

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
