import type { Tx } from "./db/pool.ts";
import { Held } from "./held.ts";
import { corsHeaders } from "./cors.ts";
import { env } from "./env.ts";
import { Fail, Unavailable } from "./envelope.ts";
import { log } from "./log.ts";

/**
 * Longest a reader may leave a batch untaken: a client that stops reading gives its database
 * connection back after this, instead of holding it until the held transaction's own limit.
 */
export const STALL_LIMIT_MS = 10_000;

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
function takePlace(caller: string): () => void {
  if ((streamingBy.get(caller) ?? 0) >= MAX_STREAMS_PER_CALLER) {
    throw new Fail(
      "Too many whole results of yours are still being sent: read them first, or ask by id",
      429,
      {},
      { "Retry-After": "2" },
    );
  }
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

/**
 * A list answer read from the database batch by batch while it is sent: the handler returns it with
 * its first batch read, its transaction stays open (`Held`) until the last batch is sent, and the
 * pipeline writes the usual JSend success envelope around the rows as they arrive. The server holds
 * two batches at most, whatever the number of rows.
 */
export class RowStream extends Held {
  #expired: (() => void) | null = null;

  constructor(
    /** The rows read before the handler returned. */
    readonly first: readonly unknown[],
    /** Reads the next batch in the same transaction. */
    readonly next: (tx: Tx) => Promise<readonly unknown[]>,
    /** The rows `next` reads at most: a shorter batch is the last. */
    readonly batchSize: number,
  ) {
    super();
  }

  expired(): void {
    this.#expired?.();
  }

  /**
   * The success response: `{"status":"success","data":[` and each batch as `check` returns it
   * (the result schema applied to the batch, as it is to a whole list), then `]}` once the
   * transaction has committed. The first batch is checked and encoded here, so a failure of it
   * throws before any byte is sent. Whatever goes wrong after the first byte (the database, the
   * client leaving, HELD_TRANSACTION_LIMIT_MS) ends the transaction and aborts the body, so a
   * client never receives a complete envelope holding part of the list.
   */
  response(
    check: (batch: readonly unknown[]) => unknown[],
    headers: Record<string, string>,
    context: { fn: string; request_id: string },
    caller: string,
  ): Response {
    const started = performance.now();
    const held = this.transaction;
    const givePlaceBack = takePlace(caller);
    let stallTimer: ReturnType<typeof setTimeout> | undefined;
    const encoder = new TextEncoder();
    let rows = 0;
    let finished = false;
    const finish = (outcome: string, error?: unknown) => {
      if (finished) return;
      finished = true;
      clearTimeout(stallTimer);
      givePlaceBack();
      const fields = { ...context, rows, ms: Math.round(performance.now() - started), outcome };
      if (error === undefined) log.info("stream", fields);
      else log.error("stream", { ...fields, reason: String(error).slice(0, 500) });
    };
    const encodeBatch = (batch: readonly unknown[]): string => {
      const text = JSON.stringify(check(batch)).slice(1, -1);
      const prefix = rows > 0 && text.length > 0 ? "," : "";
      rows += batch.length;
      return prefix + text;
    };
    let chunk: string | null = '{"status":"success","data":[' + encodeBatch(this.first);
    // The next batch is asked for before this one is sent, so the database reads while the server
    // checks and encodes: two batches at most are held at a time.
    let ahead: Promise<readonly unknown[]> | null = held.work(this.next);
    ahead.catch(() => {}); // reported when awaited
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#expired = () => {
          finish("expired");
          controller.error(new Error("The answer was not read within its time limit"));
        };
      },
      pull: async (controller) => {
        try {
          if (chunk === null) {
            const batch: readonly unknown[] = ahead ? await ahead : [];
            ahead = batch.length < this.batchSize ? null : held.work(this.next);
            ahead?.catch(() => {});
            chunk = encodeBatch(batch);
          }
          if (ahead === null) {
            await held.end(true);
            chunk += "]}";
          }
          clearTimeout(stallTimer);
          controller.enqueue(encoder.encode(chunk));
          chunk = null;
          if (ahead === null) {
            controller.close();
            finish("complete");
            return;
          }
          // The next pull comes once the client has taken this batch; a client that stops
          // reading gives the connection back after STALL_LIMIT_MS.
          stallTimer = setTimeout(() => {
            finish("reader stalled");
            held.end(false).catch(() => {});
            controller.error(new Error("The client stopped reading the answer"));
          }, STALL_LIMIT_MS);
        } catch (error) {
          await held.end(false).catch(() => {});
          finish("failed", error);
          controller.error(error);
        }
      },
      cancel: async () => {
        finish("client left");
        await held.end(false).catch(() => {});
      },
    });
    return new Response(body, {
      status: 200,
      headers: { ...corsHeaders, ...headers, "Content-Type": "application/json; charset=utf-8" },
    });
  }
}
