import type { Tx } from "./db/pool.ts";
import { Held } from "./db/held_transaction.ts";
import { corsHeaders } from "./cors.ts";
import { log } from "./log.ts";

/**
 * Longest a reader may leave a batch untaken: a client that stops reading gives its database
 * connection back after this, instead of holding it until the held transaction's own limit.
 */
export const STALL_LIMIT_MS = 10_000;

/**
 * Batches read and encoded at once across every stream of this instance. Streams whose readers
 * keep up (or whose bytes still fit the sockets' buffers) otherwise all read, check and encode at
 * once, and memory grew with their number. In turns, the rows being worked on are those of two
 * batches, whatever the number of streams; the database and the sockets are no faster for more.
 */
const BATCHES_AT_ONCE = 2;
let batchesRunning = 0;
const waitingForTurn: (() => void)[] = [];

/** Runs `work` once fewer than BATCHES_AT_ONCE batches are being read and encoded. */
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (batchesRunning < BATCHES_AT_ONCE) batchesRunning++;
  else await new Promise<void>((resolve) => waitingForTurn.push(resolve));
  try {
    return await work();
  } finally {
    const next = waitingForTurn.shift();
    if (next) next();
    else batchesRunning--;
  }
}

/**
 * A list answer read from the database batch by batch while it is sent: the handler returns it with
 * its first batch read, its transaction stays open (`Held`) until the last batch is sent, and the
 * pipeline writes the usual JSend success envelope around the rows as they arrive. Each stream holds
 * one encoded batch at most, whatever the number of rows.
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
    /** Gives back the place this answer took among those sent at once (`stream_places.ts`). */
    givePlaceBack: () => void,
  ): Response {
    const started = performance.now();
    const held = this.transaction;
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
    let more = true;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#expired = () => {
          finish("expired");
          controller.error(new Error("The answer was not read within its time limit"));
        };
      },
      pull: async (controller) => {
        // The client took the last batch: reading the next is the database's time, not a stall.
        clearTimeout(stallTimer);
        try {
          if (chunk === null) {
            chunk = await inTurn(async () => {
              const batch = await held.work(this.next);
              more = batch.length >= this.batchSize;
              return encodeBatch(batch);
            });
          }
          if (!more) {
            await held.end(true);
            chunk += "]}";
          }
          controller.enqueue(encoder.encode(chunk));
          chunk = null;
          if (!more) {
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
