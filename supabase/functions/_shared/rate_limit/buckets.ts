/** The contract's rate buckets (interface.md, Limits): who a request counts against, and how much. */

/** Which kind of caller a request counts against. */
export type BucketKind = "api_key" | "jwt" | "service" | "ip";

/** Requests allowed per sliding window (`WINDOW`), per bucket kind. */
export const bucketLimits: Readonly<Record<BucketKind, number>> = {
  api_key: 120,
  jwt: 240,
  service: 600,
  ip: 30,
};

/** The sliding window's length, as @upstash/ratelimit takes it. */
export const WINDOW = "60 s" as const;
export const WINDOW_MS = 60_000;

/** The outcome of one request against a bucket's window. `reset` is epoch milliseconds. */
export interface WindowResult {
  success: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

/** The same value for each bucket kind. */
export function mapKinds<T>(make: (kind: BucketKind) => T): Record<BucketKind, T> {
  return { api_key: make("api_key"), jwt: make("jwt"), service: make("service"), ip: make("ip") };
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
