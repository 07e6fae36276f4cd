import type postgres from "postgres";
import { isConnectionError } from "../db_errors.ts";
import { connectionError, type Tx } from "./pool.ts";
import { dropConnectionOf, refusedWhenSent } from "./postgres_js_workarounds.ts";

/** The error of a request whose connection closed under it (503, as db_errors.ts reads it). */
function connectionClosed(): Error {
  return Object.assign(new Error("The database connection closed during the transaction"), {
    code: "CONNECTION_CLOSED",
  });
}

/**
 * Learns when a reserved connection is gone, from the connection error its queries are refused
 * with (postgres.js refuses a closed reservation's queries). After that, nothing more may be sent
 * through this reservation.
 */
export class ConnectionWatch {
  lost = false;
  /**
   * Set as the transaction's COMMIT or ROLLBACK is sent (a COMMIT sent ahead included): a statement
   * sent after it would run outside the transaction, as the login role.
   */
  sealed = false;
  /**
   * Set once the transaction has ended and its connection gone back: a statement a handler still
   * sends (work left running after a refusal) must not reach a connection another request holds.
   */
  ended = false;

  #firstFailure: unknown = undefined;

  /** Notes a statement's failure: the first one is what the statements after it failed for. */
  failed(error: unknown): void {
    this.#firstFailure ??= error;
  }

  /** The first statement's failure, if one failed: the transaction failed with it. */
  get failure(): { error: unknown } | null {
    return this.#firstFailure === undefined ? null : { error: this.#firstFailure };
  }

  /**
   * The error a transaction failed with: a statement refused because an earlier one failed
   * (SQLSTATE 25P02) stands for that earlier failure, such as a check sent ahead of the work it
   * guards.
   */
  firstFailure(error: unknown): unknown {
    const aborted = (error as { code?: unknown } | null)?.code === "25P02";
    return aborted && this.#firstFailure !== undefined ? this.#firstFailure : error;
  }

  /** Notes whether `error` means the connection is gone; returns it. */
  seen(error: unknown): unknown {
    if (isConnectionError(error)) this.lost = true;
    return error;
  }

  /**
   * Ends the transaction's hold on its connection. postgres.js closes a connection released in the
   * middle of a transaction, or with a statement unanswered, instead of handing it out again.
   */
  giveBack(reserved: postgres.ReservedSql): void {
    this.ended = true;
    this.stopDeadline();
    reserved.release();
  }

  #timer: ReturnType<typeof setTimeout> | undefined;
  #drop: () => void = () => {};

  /** Names a query of the reservation, whose connection the deadline drops. */
  dropsWith(query: unknown): void {
    this.#drop = () => dropConnectionOf(query);
  }

  /**
   * A promise that never resolves and rejects after `ms` with a connection error, having dropped
   * the connection: whatever waits on it (a frozen database answers nothing) is refused at once,
   * and the connection is never reused.
   */
  deadline(ms: number): Promise<never> {
    const expired = new Promise<never>((_, reject) => {
      this.#timer = setTimeout(() => {
        this.lost = true;
        this.#drop();
        reject(connectionError(`The database did not finish the transaction within ${ms} ms`));
      }, ms);
    });
    expired.catch(() => {});
    return expired;
  }

  stopDeadline(): void {
    clearTimeout(this.#timer);
  }
}

/** Why nothing more may be sent through the reservation, or null while it may. */
function refusalOf(watch: ConnectionWatch): Error | null {
  if (watch.lost) return connectionClosed();
  if (watch.ended) return new Error("The transaction has ended: nothing more may be sent in it");
  if (watch.sealed) {
    return new Error("The transaction's COMMIT or ROLLBACK was sent: nothing may follow");
  }
  return null;
}

/** Whether a value is a postgres.js query (a statement, or a fragment of one). */
function isQuery(value: unknown): value is postgres.PendingQuery<postgres.Row[]> {
  return value instanceof Promise && "execute" in value && typeof value.execute === "function";
}

/**
 * The reservation as handlers see it:
 * - a statement is sent as it is written, in the order written: a handler awaits answers, never
 *   sends (postgres.js sends a query only once it is awaited, so two statements awaited together
 *   would go out in the order their awaits reach them). A query written into another is a fragment
 *   of it, never sent; it must be written into it in the same synchronous step;
 * - a query after its connection closed fails (503) at once, and so does one sent after the
 *   transaction's COMMIT or ROLLBACK, or after it ended.
 */
export function guard(reserved: postgres.ReservedSql, watch: ConnectionWatch): Tx {
  const refuseIfLost = () => {
    const refusal = refusalOf(watch);
    if (refusal !== null) throw refusal;
  };
  const fragments = new WeakSet<object>();
  const watched = <Q>(query: Q, args: readonly unknown[]): Q => {
    for (const arg of args.flat()) if (isQuery(arg)) fragments.add(arg);
    const checked = refusedWhenSent(query, () => refusalOf(watch));
    if (isQuery(checked)) {
      // Promise's own `then`, which hears the failure first and sends nothing (the query's sends).
      Promise.prototype.then.call(checked, undefined, (e) => watch.failed(e));
      queueMicrotask(() => {
        if (!fragments.has(checked)) checked.execute();
      });
    }
    return checked;
  };
  return new Proxy(reserved, {
    apply(target, self, args) {
      refuseIfLost();
      return watched(Reflect.apply(target, self, args), args.slice(1));
    },
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "unsafe" || typeof value !== "function") return value;
      return (...args: Parameters<typeof target.unsafe>) => {
        refuseIfLost();
        return watched(target.unsafe(...args), (args[1] ?? []) as readonly unknown[]);
      };
    },
  });
}
