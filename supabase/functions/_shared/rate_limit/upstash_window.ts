import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { type BucketKind, bucketLimits, mapKinds, WINDOW, type WindowResult } from "./buckets.ts";

/** Longest a call to Upstash may take before the database counts the request instead. */
const STORE_TIMEOUT_MS = 1_000;

/**
 * The card's limiter: @upstash/ratelimit's sliding window per bucket kind in one Upstash
 * database, one unit per request. Configured for exact budgets: no `timeout` (the library would
 * answer "allowed" when the store is slow), no ephemeral cache (it refuses from memory until a
 * fixed reset, while the window slides), no analytics, one region. A store that fails or is slow
 * makes `limit` throw; the caller then counts the request elsewhere (`verdict.ts`).
 */
export class UpstashWindows {
  readonly #limiters: Record<BucketKind, Ratelimit>;

  constructor(url: string, token: string, prefix: string) {
    const redis = new Redis({
      url,
      token,
      // By default @upstash/redis retries a failed fetch 5 times over about 4 s and waits for an
      // answer without limit. A signal given as a function makes a timeout throw (a plain signal
      // is turned into a made-up result).
      retry: { retries: 0 },
      signal: () => AbortSignal.timeout(STORE_TIMEOUT_MS),
      enableTelemetry: false,
    });
    this.#limiters = mapKinds((kind) =>
      new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(bucketLimits[kind], WINDOW),
        prefix: `${prefix}:${kind}`,
        timeout: 0,
        ephemeralCache: false,
        analytics: false,
        enableTelemetry: false,
      })
    );
  }

  /** Counts one request of `identifier` in its kind's window. */
  async limit(kind: BucketKind, identifier: string): Promise<WindowResult> {
    const { success, limit, remaining, reset } = await this.#limiters[kind].limit(identifier);
    return { success, limit, remaining, reset };
  }
}
