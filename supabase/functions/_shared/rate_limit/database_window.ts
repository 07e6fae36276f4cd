import { connectionError, type Tx } from "../db/pool.ts";
import type { SendAhead } from "../db/transaction.ts";
import { type BucketKind, bucketLimits, WINDOW_MS, type WindowResult } from "./buckets.ts";

/**
 * Counts one request of `key` in the database's sliding window (`private.take_rate_limit`, the
 * library's arithmetic in SQL): one autocommitted statement, sent at once, so a transaction opened
 * right after it on the same connection travels in the same write. A refusal of the request
 * `requestId` is kept for `assertWithinBudget`.
 */
export function countInDatabase(
  send: SendAhead,
  kind: BucketKind,
  key: string,
  requestId: string | null = null,
): Promise<WindowResult> {
  const limit = bucketLimits[kind];
  return send(
    `select remaining, reset_ms
     from private.take_rate_limit($1::text, $2::integer, $3::integer, request_id => $4::uuid)`,
    [key, limit, WINDOW_MS, requestId],
  )
    .then(([row]) => {
      // The function always returns a row; without one the budget is unknown: 503.
      if (!row) throw connectionError("The rate limit's count did not complete");
      return {
        success: row.remaining >= 0,
        limit,
        remaining: Math.max(0, row.remaining),
        reset: row.reset_ms,
      };
    });
}

/**
 * The statement that refuses the transaction of a request whose count, sent ahead of it, refused
 * it (`private.assert_within_budget`): written first, so a write need not wait for its count.
 */
export function assertWithinBudget(tx: Tx, requestId: string) {
  return tx`select private.assert_within_budget(${requestId}::uuid)`;
}
