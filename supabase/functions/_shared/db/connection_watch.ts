import type postgres from "postgres";
import { isConnectionError } from "../db_errors.ts";
import { connectionError, type Tx } from "./pool.ts";

/** The part of postgres.js's connection object the watch uses. */
interface PoolConnection {
  onclose: ((error: unknown) => void) | null;
  terminate(): void;
}

/**
 * Learns when a reserved connection is gone: from a connection error a query of it reported (a
 * socket error reaches the queries before the close event), or from the close itself. postgres.js
 * calls a query's `onexecute` option with the connection it is written to, and a connection's
 * `onclose` when it closes; `sql.begin` uses the same two hooks. After a close, the pool may
 * reconnect that connection for another caller, so nothing more may be sent through this
 * reservation.
 */
export class ConnectionWatch {
  lost = false;
  /** Set once COMMIT has been sent ahead: the transaction takes no more statements. */
  sealed = false;
  /**
   * Set once the transaction has ended and its connection gone back: a statement a handler still
   * sends (work left running after a refusal) must not reach a connection another request holds.
   */
  ended = false;
  #connection: PoolConnection | null = null;

  /** Notes whether `error` means the connection is gone; returns it. */
  seen(error: unknown): unknown {
    if (isConnectionError(error)) this.lost = true;
    return error;
  }

  readonly options = {
    onexecute: (connection: PoolConnection): boolean => {
      this.#connection = connection;
      connection.onclose = () => {
        this.lost = true;
        // A query the close left unanswered may stay queued for the reconnect (seen through a
        // transaction-mode pooler): the request answers now instead of at its deadline.
        this.#fail?.(
          Object.assign(new Error("The database connection closed during the transaction"), {
            code: "CONNECTION_CLOSED",
          }),
        );
      };
      return true; // keeps the connection writable for the next pipelined query
    },
  } as unknown as postgres.UnsafeQueryOptions;

  detach(): void {
    if (this.#connection) this.#connection.onclose = null;
  }

  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Rejects the deadline early, when the connection closes. */
  #fail: ((error: unknown) => void) | null = null;

  /**
   * A promise that never resolves and rejects after `ms` with a connection error, having dropped
   * the connection: whatever waits on it (a frozen database answers nothing) is refused at once,
   * and the connection is never reused.
   */
  deadline(ms: number): Promise<never> {
    const expired = new Promise<never>((_, reject) => {
      this.#fail = reject;
      this.#timer = setTimeout(() => {
        this.lost = true;
        this.#connection?.terminate();
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

/** The reservation as handlers see it: a query after its connection closed fails (503) at once. */
export function guard(reserved: postgres.ReservedSql, watch: ConnectionWatch): Tx {
  const refuseIfLost = () => {
    if (watch.lost) {
      throw Object.assign(new Error("The database connection closed during the transaction"), {
        code: "CONNECTION_CLOSED",
      });
    }
    if (watch.ended) {
      throw new Error("The transaction has ended: nothing more may be sent in it");
    }
    if (watch.sealed) {
      throw new Error("The transaction's COMMIT was sent ahead: nothing may follow");
    }
  };
  return new Proxy(reserved, {
    apply(target, self, args) {
      refuseIfLost();
      return Reflect.apply(target, self, args);
    },
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "unsafe" || typeof value !== "function") return value;
      return (...args: Parameters<typeof target.unsafe>) => {
        refuseIfLost();
        return target.unsafe(...args);
      };
    },
  });
}
