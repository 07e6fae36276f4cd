import {
  honoursIdempotencyKey,
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  refusesIdempotencyKey,
} from "@shared/idempotency.ts";
import { Fail } from "./envelope.ts";
import type { Tx } from "./db/pool.ts";
import type postgres from "postgres";

/** A key and the body it came with: what a request claims before it does its work. */
export interface IdempotentRequest {
  key: string;
  endpoint: string;
  bodyHash: string;
}

/**
 * The request's Idempotency-Key when `endpoint` honours one (null when none was sent, or the
 * endpoint is a read); a malformed key, or one sent where it cannot be honoured, is a 400.
 */
export function idempotencyKeyOf(req: Request, endpoint: string): string | null {
  const key = req.headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return null;
  if (refusesIdempotencyKey(endpoint)) {
    throw new Fail(
      `${endpoint} does not take ${IDEMPOTENCY_HEADER}: its answer holds a key shown only once`,
      400,
    );
  }
  if (!honoursIdempotencyKey(endpoint)) return null;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new Fail(
      `Invalid ${IDEMPOTENCY_HEADER} header: expected 1 to 255 printable ASCII characters`,
      400,
    );
  }
  return key;
}

/** The stored answer of an earlier request with the same key, to be given again as it was. */
export class Replay {
  constructor(readonly status: number, readonly body: unknown) {}
}

/**
 * Claims the key inside the request's transaction: the first request goes on; a repeat with the
 * same body throws its stored answer as a `Replay`, with another body a 422, and while the first
 * is still being answered a 409. A concurrent repeat waits for the first's transaction to end.
 * The claim is sent at the call (not at the first await), so statements sent after it run after it.
 */
export async function claimKey(tx: Tx, request: IdempotentRequest): Promise<void> {
  const [earlier] = await tx<
    {
      endpoint: string;
      body_hash: string;
      status: number | null;
      answer: unknown;
      answering: boolean;
    }[]
  >`select * from private.claim_idempotency_key(
      ${request.key}, ${request.endpoint}, ${request.bodyHash})`;
  if (!earlier) return;
  if (earlier.endpoint !== request.endpoint || earlier.body_hash !== request.bodyHash) {
    throw new Fail(
      `${IDEMPOTENCY_HEADER} was already used with another request: send a new key for a new ` +
        "request (a key is kept for 24 hours)",
      422,
      { field: IDEMPOTENCY_HEADER },
    );
  }
  if (earlier.status === null && earlier.answering) {
    throw new Fail(
      `A request with this ${IDEMPOTENCY_HEADER} is still being answered: retry shortly`,
      409,
      { field: IDEMPOTENCY_HEADER },
      { "Retry-After": "1" },
    );
  }
  if (earlier.status === null) {
    // Its work committed, but its answer (made after the commit) was never kept.
    throw new Fail(
      `The request first sent with this ${IDEMPOTENCY_HEADER} did its work but its answer was ` +
        "lost: check the result before sending it again with a new key",
      409,
      { field: IDEMPOTENCY_HEADER },
    );
  }
  throw new Replay(earlier.status, earlier.answer);
}

/** The statement that keeps the answer of the request that claimed the key, in its transaction. */
export function rememberAnswer(
  tx: Tx,
  request: IdempotentRequest,
  status: number,
  body: unknown,
): postgres.PendingQuery<postgres.Row[]> {
  return tx`select private.remember_idempotent_answer(
    ${request.key}, ${status}::smallint, ${tx.json(body as never)})`;
}
