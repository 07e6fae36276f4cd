/**
 * The one transaction runner: a reserved connection, BEGIN, the opener and the handler's queries
 * pipelined, COMMIT (or rollback), bounded by a deadline; a handler's `Held` answer keeps it open.
 */
import type postgres from "postgres";
import { Held } from "./held_transaction.ts";
import { ConnectionWatch, guard } from "./connection_watch.ts";
import { holdOpen } from "./held_open.ts";
import { connectionError, reserveConnection, TRANSACTION_DEADLINE_MS, type Tx } from "./pool.ts";

/** Sends one statement with its parameters `$1..$n`, now. */
export type SendAhead = (text: string, params: unknown[]) => Promise<postgres.Row[]>;

/** How a transaction runs. */
export interface TransactionOptions {
  /**
   * COMMIT is sent right behind what `fn` sends before it awaits any answer: a transaction of one
   * round trip. `fn` may send nothing after that (it fails if it tries); if anything in the
   * transaction failed, Postgres answers the COMMIT with a rollback.
   */
  commitAhead?: boolean;
  /** The opener also asks for cached generic plans for the rest of the transaction. */
  genericPlans?: boolean;
  /**
   * The opener also makes the transaction read-only once it has opened: Postgres refuses any write
   * the handler attempts. Its value is returned without waiting for its COMMIT.
   */
  readOnly?: boolean;
  /**
   * Sends statements of their own (through `send`) on the connection before BEGIN, in the same
   * write: each commits by itself, whatever becomes of the transaction (the rate limiter's count).
   * A statement whose connection is lost, or dropped at the deadline, is refused with it.
   */
  ahead?: ((send: SendAhead) => void) | undefined;
  /**
   * A statement sent right before COMMIT, in the same write, once `fn` has finished (an
   * Idempotency-Key's answer, kept with the work it answers). If it
   * fails, Postgres answers the COMMIT with a rollback and its error is the transaction's. Not with
   * `commitAhead`.
   */
  withCommit?: ((tx: Tx) => postgres.PendingQuery<postgres.Row[]> | null) | undefined;
}

/**
 * The one transaction runner. BEGIN, the opening statement (which sets the role) and the
 * handler's first query are sent without waiting for one another, so they reach Postgres in one
 * write and a request costs two round trips (that, and COMMIT) instead of four; a read sends its
 * COMMIT in the same write too (`commitAhead`), one round trip. Statements on one connection run
 * in order, so the opening is in force for everything `fn` sends; if it fails, the transaction is
 * aborted, nothing after it runs, and its error is the one reported.
 */
export async function inTransaction<O extends postgres.Row[], T>(
  open: (tx: Tx) => postgres.PendingQuery<O>,
  fn: (tx: Tx) => Promise<T>,
  options: TransactionOptions = {},
): Promise<{ value: T; opened: O }> {
  const reserved = await reserveConnection();
  const watch = new ConnectionWatch();
  const deadline = watch.deadline(TRANSACTION_DEADLINE_MS);
  let handedOver = false;
  const giveBack = () => watch.giveBack(reserved);
  try {
    // Unprepared, its values written in (`withLiteralValues`): a statement with parameters that is
    // unnamed, or not yet prepared on this connection, waits for its description before anything
    // behind it is sent.
    options.ahead?.((text, params) => reserved.unsafe(text, params as never[]).execute());
    const begun = reserved.unsafe("begin").execute();
    watch.dropsWith(begun);
    const opening = open(reserved).execute();
    // Handled below, once `fn` has finished: an opening error outranks what it caused in `fn`.
    begun.catch(() => {});
    opening.catch(() => {});

    const tx = guard(reserved, watch);
    // `fn`'s own promise (a throw becomes its rejection, answered by the rollback below), so that a
    // failure before its first await is known before the COMMIT.
    let running: Promise<T>;
    try {
      running = fn(tx);
    } catch (error) {
      running = Promise.reject(error);
    }
    let failedEarly = false;
    running.catch(() => (failedEarly = true));
    let committed: Promise<unknown> | null = null;
    if (options.commitAhead) {
      // The statements `fn` wrote before its first await are sent in the microtasks their writing
      // queued (`guard`); the COMMIT follows them in the same write, unless `fn` failed already.
      await null;
      if (!failedEarly) {
        watch.sealed = true;
        committed = reserved.unsafe("commit").execute();
        committed.catch(() => {});
      }
    }
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await Promise.race([running, deadline]) };
      // A statement the handler sent and never awaited failed: the transaction failed with it.
      outcome = watch.failure ?? outcome;
    } catch (error) {
      outcome = { error: watch.seen(watch.firstFailure(error)) };
    }
    const started = await Promise.race([
      Promise.allSettled([begun, opening]),
      deadline,
    ]);
    const refusal = started.find((s) => s.status === "rejected")?.reason;
    if (refusal !== undefined || "error" in outcome) {
      // A COMMIT sent ahead ends the failed transaction as a rollback. Work still running (a check
      // sent ahead of it refused) may send nothing after this.
      watch.sealed = true;
      const ending = committed ?? reserved.unsafe("rollback");
      if (!watch.lost) await Promise.race([ending, deadline]).catch((e) => watch.seen(e));
      // A lost connection is the answer, whatever the handler made of the refusals it caused.
      if (watch.lost) throw connectionError("The database connection was lost");
      throw watch.seen(refusal ?? ("error" in outcome ? outcome.error : undefined));
    }
    if (watch.lost) throw connectionError("The database connection was lost");
    if (!committed && outcome.value instanceof Held) {
      const opened = await opening;
      outcome.value.attach(holdOpen(reserved, watch, outcome.value));
      handedOver = true;
      return { value: outcome.value, opened };
    }
    if (!committed && options.readOnly) {
      // Its rows are read, and a read-only COMMIT can change none of them: the answer goes out
      // now, and the connection goes back to the pool once the COMMIT is done (a read-only find
      // whose rows fit its first batch answers after one round trip, not two).
      watch.sealed = true;
      handedOver = true;
      // A failure is noted (a connection that failed it goes back as lost), not answered.
      Promise.race([reserved.unsafe("commit"), deadline]).catch((e) => watch.seen(e))
        .finally(giveBack);
      return { value: outcome.value, opened: await opening };
    }
    // Both sent before either is awaited: they leave in one write.
    const recorded = committed ? null : options.withCommit?.(tx)?.execute() ?? null;
    recorded?.catch(() => {});
    watch.sealed = true;
    const ended = await Promise.race([committed ?? reserved.unsafe("commit"), deadline]).catch(
      (e) => {
        throw watch.seen(e);
      },
    );
    if (recorded) {
      await Promise.race([recorded, deadline]).catch((e) => {
        throw watch.seen(e);
      });
    }
    // Postgres answers the COMMIT of a transaction in which a statement failed with a rollback.
    const failure = watch.failure;
    if (failure) throw failure.error;
    // Anything but COMMIT's own answer leaves the write's fate unknown.
    if ((ended as { command?: string }).command !== "COMMIT") {
      throw connectionError("The database did not confirm the COMMIT");
    }
    return { value: outcome.value, opened: await opening };
  } finally {
    if (!handedOver) giveBack();
  }
}

/**
 * Sends one statement that commits by itself, on a connection of its own, bounded as a transaction
 * is: past the deadline its connection is dropped and it fails (503), even while the statement
 * waits for a description that a frozen database never sends.
 */
export async function sendAlone(text: string, params: unknown[]): Promise<postgres.Row[]> {
  const reserved = await reserveConnection();
  const watch = new ConnectionWatch();
  const deadline = watch.deadline(TRANSACTION_DEADLINE_MS);
  try {
    const sent = reserved.unsafe(text, params as never[]).execute();
    watch.dropsWith(sent);
    return await Promise.race([sent, deadline]);
  } finally {
    watch.giveBack(reserved);
  }
}
