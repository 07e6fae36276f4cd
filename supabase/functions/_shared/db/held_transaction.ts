/**
 * Transactions kept open after their handler returns, for answers read from the database while
 * they are sent (streamed finds). The transaction runner (`transaction.ts`) hands them over; this
 * module loads no pool, so the code that builds such answers does not either.
 */
import type { Tx } from "./pool.ts";

/**
 * Longest a held transaction stays open after its handler returned, whatever its holder does: the
 * bound on a streamed answer whose client reads too slowly. Past it the transaction is rolled back,
 * the connection given back, and the holder told (`expired`).
 */
export const HELD_TRANSACTION_LIMIT_MS = 30_000;

/** What the holder of a transaction kept open may do with it. */
export interface HeldTransaction {
  /** Runs one piece of database work in the transaction, bounded as a whole transaction is
   * (the connection is dropped past the deadline). */
  work<R>(query: (tx: Tx) => Promise<R>): Promise<R>;
  /** Commits (or rolls back) and gives the connection back; once, whoever calls it first. */
  end(commit: boolean): Promise<void>;
}

/**
 * A handler result that keeps its transaction open after the handler returns: instead of
 * committing, the runner hands the transaction over (`attach`), and the holder must `end` it.
 */
export abstract class Held {
  #held: HeldTransaction | null = null;

  /** Called by the transaction runner when it hands the transaction over. */
  attach(held: HeldTransaction): void {
    this.#held = held;
  }

  /** The transaction handed over; only after the runner returned this value. */
  get transaction(): HeldTransaction {
    if (!this.#held) throw new Error("The transaction was not handed over");
    return this.#held;
  }

  /** Told once the transaction was ended for outliving HELD_TRANSACTION_LIMIT_MS. */
  abstract expired(): void;
}
