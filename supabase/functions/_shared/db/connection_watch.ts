import type postgres from "postgres";
import { isConnectionError } from "../db_errors.ts";
import { connectionError, type Tx } from "./pool.ts";
import { ConnectionHooks, refusedWhenSent } from "./postgres_js_workarounds.ts";

/** The error of a request whose connection closed under it (503, as db_errors.ts reads it). */
function connectionClosed(): Error {
  return Object.assign(new Error("The database connection closed during the transaction"), {
    code: "CONNECTION_CLOSED",
  });
}

/**
 * Learns when a reserved connection is gone: from a connection error a query of it reported (a
 * socket error reaches the queries before the close event), or from the close itself
 * (`ConnectionHooks`). After a close, the pool may reconnect that connection for another caller,
 * so nothing more may be sent through this reservation.
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

  /** Notes whether `error` means the connection is gone; returns it. */
  seen(error: unknown): unknown {
    if (isConnectionError(error)) this.lost = true;
    return error;
  }

  readonly #hooks = new ConnectionHooks(() => {
    this.lost = true;
    // The request answers now instead of at its deadline.
    this.#fail?.(connectionClosed());
  });

  /** The options of the transaction's first statement, which attach the watch to its connection. */
  get options(): postgres.UnsafeQueryOptions {
    return this.#hooks.options;
  }

  detach(): void {
    this.#hooks.detach();
  }

  /**
   * Ends the transaction's hold on its connection: `give` frees its place in the pool. A connection
   * that closed goes back to the pool as closed (postgres.js reconnects it); releasing it would hand
   * it out as open.
   */
  giveBack(reserved: postgres.ReservedSql, give: () => void): void {
    this.ended = true;
    this.stopDeadline();
    give();
    if (!this.lost) {
      this.detach();
      reserved.release();
    }
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
        this.#hooks.terminate();
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

/**
 * The reservation as handlers see it: a query after its connection closed fails (503) at once,
 * and so does one sent after the transaction's COMMIT or ROLLBACK, or after it ended.
 */
export function guard(reserved: postgres.ReservedSql, watch: ConnectionWatch): Tx {
  const refuseIfLost = () => {
    const refusal = refusalOf(watch);
    if (refusal !== null) throw refusal;
  };
  return new Proxy(reserved, {
    apply(target, self, args) {
      refuseIfLost();
      return refusedWhenSent(Reflect.apply(target, self, args), () => refusalOf(watch));
    },
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "unsafe" || typeof value !== "function") return value;
      return (...args: Parameters<typeof target.unsafe>) => {
        refuseIfLost();
        return refusedWhenSent(target.unsafe(...args), () => refusalOf(watch));
      };
    },
  });
}
