import type { SendAhead } from "../db/transaction.ts";
import { type BucketKind, bucketLimits, WINDOW_MS, type WindowResult } from "./buckets.ts";

/**
 * Counts one request of `key` in the database's sliding window (`private.take_rate_limit`, the
 * library's arithmetic in SQL): one autocommitted statement, sent at once, so a transaction opened
 * right after it on the same connection travels in the same write.
 */
export function countInDatabase(
  send: SendAhead,
  kind: BucketKind,
  key: string,
): Promise<WindowResult> {
  const limit = bucketLimits[kind];
  return send(
    "select remaining, reset_ms from private.take_rate_limit($1::text, $2::integer, $3::integer)",
    [key, limit, WINDOW_MS],
  )
    .then(([row]) => {
      if (!row) throw new Error("take_rate_limit returned no row");
      return {
        success: row.remaining >= 0,
        limit,
        remaining: Math.max(0, row.remaining),
        reset: row.reset_ms,
      };
    });
}
