/**
 * A request's rate budget: counted in every bucket of its credential as soon as the credential is
 * known, and its verdict awaited where an answer depends on it. The limiter is a round trip of its
 * own (Upstash over HTTPS on the platform), so a request that may run before the verdict (`overlaps`)
 * has its database work done meanwhile: a read is answered only once the verdict allows it, and a
 * write commits only then (`db/transaction.ts`, `beforeCommit`).
 */
import { noteAddressWindow } from "./auth/api_key_standing.ts";
import type { Bucket } from "./auth/credential.ts";
import type { EndpointContract } from "@shared/contract.ts";
import { consumeRateLimit, rateLimitHeaders, type WindowResult } from "./rate_limit.ts";
import { refusals } from "./refusals.ts";
import { sha256Hex } from "./sha256.ts";

type Store = EndpointContract["ingress"];

/**
 * How long a refused bucket's next requests wait for their verdict before any database work: a
 * caller over budget costs at most one transaction per second per instance, not one per request.
 */
const REFUSAL_MEMORY_MS = 1_000;
const MAX_REMEMBERED = 10_000;
const refusedUntil = new Map<string, number>();

function remembered(bucket: Bucket): string {
  return sha256Hex(`${bucket.kind}:${bucket.identifier}`);
}

function rememberRefusal(bucket: Bucket): void {
  if (refusedUntil.size >= MAX_REMEMBERED) {
    const now = Date.now();
    for (const [key, until] of refusedUntil) if (until <= now) refusedUntil.delete(key);
    if (refusedUntil.size >= MAX_REMEMBERED) refusedUntil.clear();
  }
  refusedUntil.set(remembered(bucket), Date.now() + REFUSAL_MEMORY_MS);
}

/** Counts one request in a bucket; what an address's window says is noted for API-key lookups. */
export async function consume(bucket: Bucket, store: Store): Promise<WindowResult> {
  const window = await consumeRateLimit(bucket.kind, bucket.identifier, store);
  if (bucket.kind === "ip") noteAddressWindow(bucket.identifier, window);
  if (!window.success) rememberRefusal(bucket);
  return window;
}

/**
 * Counts the request in each of its buckets; the first that refuses decides the answer, else the
 * first bucket's window is the one reported.
 */
async function consumeBudgets(buckets: readonly Bucket[], store: Store): Promise<WindowResult> {
  const windows = await Promise.all(buckets.map((b) => consume(b, store)));
  const reported = windows.find((w) => !w.success) ?? windows[0];
  if (!reported) throw new Error("A credential always counts against at least one bucket");
  return reported;
}

export class Budget {
  readonly #verdict: Promise<Record<string, string>>;
  /** Whether one of the buckets was refused within the last second (in this instance). */
  readonly refusedRecently: boolean;

  constructor(buckets: readonly Bucket[], store: Store) {
    const now = Date.now();
    // Hashing is skipped on the usual path, where no bucket has been refused lately.
    this.refusedRecently = refusedUntil.size > 0 &&
      buckets.some((b) => (refusedUntil.get(remembered(b)) ?? 0) > now);
    this.#verdict = consumeBudgets(buckets, store).then((window) => {
      const headers = rateLimitHeaders(window);
      if (!window.success) throw refusals.rateLimited(headers);
      return headers;
    });
    this.#verdict.catch(() => {});
  }

  /** The budget's headers when the request is within it; its 429 refusal otherwise. */
  verdict(): Promise<Record<string, string>> {
    return this.#verdict;
  }
}
