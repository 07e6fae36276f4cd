import { env } from "./env.ts";
import { Unavailable } from "./envelope.ts";
import { refusals } from "./refusals.ts";

/**
 * Whole results being sent at once, each holding a connection until its reader has taken it: all
 * but two of the pool (one at least), so other requests always find a connection, and half the pool
 * for one caller (the web app loads several content types at once, each maybe a whole result).
 */
const MAX_STREAMS = Math.max(1, env.DATABASE_POOL_SIZE - 2);
const MAX_STREAMS_PER_CALLER = Math.max(1, Math.floor(env.DATABASE_POOL_SIZE / 2));
let streaming = 0;
const streamingBy = new Map<string, number>();

/** Takes a place for one whole result, or refuses with a fail the caller can retry after. */
export function takeStreamPlace(caller: string): () => void {
  if ((streamingBy.get(caller) ?? 0) >= MAX_STREAMS_PER_CALLER) throw refusals.tooManyStreams();
  // Beyond the cap the pool is the rest of the service's: a 503 with Retry-After, like any other
  // moment without a free connection.
  if (streaming >= MAX_STREAMS) throw new Unavailable("too many whole results are being sent");
  streaming++;
  streamingBy.set(caller, (streamingBy.get(caller) ?? 0) + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    streaming--;
    const left = (streamingBy.get(caller) ?? 1) - 1;
    if (left > 0) streamingBy.set(caller, left);
    else streamingBy.delete(caller);
  };
}
