import postgres from "postgres";
import { databaseUrl, env } from "./env.ts";
import type { Claims } from "./auth/jwt.ts";
import { isConnectionError } from "./db_errors.ts";

/** A transaction handle: every query a request makes runs through one. */
export type Tx = postgres.Sql;

/** The process-wide connection pool, built once at module scope. */
export const sql: postgres.Sql = postgres(databaseUrl(), {
  max: env.DATABASE_POOL_SIZE,
  idle_timeout: 30,
  connect_timeout: 5,
  // postgres.js waits up to 20 s between reconnect attempts after repeated failures, and queued
  // queries wait with it; capped at half a second, a call fails fast (503) while the database is
  // down and the pool reconnects within a moment of it returning.
  backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
  onnotice: () => {},
  connection: { application_name: "rpg-builder-api", TimeZone: "UTC" },
  types: {
    // Spec ids are integers; bigint columns come back as numbers (safe below 2^53).
    int8: {
      to: 20,
      from: [20],
      serialize: (x: number) => String(x),
      parse: (x: string) => Number(x),
    },
    // Timestamps stay ISO 8601 strings with full precision, so they round-trip exactly.
    timestamptz: {
      to: 1184,
      from: [1184],
      serialize: (x: string) => x,
      parse: (x: string) => x.replace(" ", "T").replace(/\+00(:00)?$/, "Z"),
    },
  },
});

/** Whom a transaction acts as: a user's claims, nobody (anon), or the service role. */
export type Acting = { role: "authenticated"; claims: Claims } | { role: "anon" } | {
  role: "service_role";
};

/**
 * Runs `fn` in one transaction as the given role with `request.jwt.claims` set transaction-locally,
 * exactly as PostgREST does, so every row-level policy applies to every statement in it. An
 * `authenticated` transaction first checks that the user still exists (401 otherwise).
 */
export async function withRole<T>(acting: Acting, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const claims = acting.role === "authenticated" ? JSON.stringify(acting.claims) : "{}";
  const { value } = await inTransaction(
    (tx) => tx`select private.begin_request(${acting.role}, ${claims})`,
    fn,
  );
  return value;
}

/**
 * Runs `fn` in one transaction as the user behind an API key: the database resolves the key by its
 * hash (and, given a character id, the key's grant on that character, acting as its owner), then
 * sets the role and claims; 401 for an unknown or revoked key, 403 without the grant. Returns the
 * result with whom it acted as, for a later transaction as the same caller.
 */
export async function withApiKey<T>(
  keyHash: string,
  characterId: number | null,
  fn: (tx: Tx) => Promise<T>,
): Promise<{ value: T; acting: Acting }> {
  const { value, opened } = await inTransaction(
    (tx) =>
      tx<{ claims: string }[]>`
      select private.begin_api_key_request(${keyHash}, ${characterId}) as claims`,
    fn,
  );
  const claims = opened[0]?.claims;
  if (claims === undefined) throw new Error("begin_api_key_request returned no claims");
  return { value, acting: { role: "authenticated", claims: JSON.parse(claims) } };
}

/**
 * The one transaction runner. BEGIN, the opening statement (which sets the role) and the
 * handler's first query are sent without waiting for one another, so they reach Postgres in one
 * write and a request costs two round trips (that, and COMMIT) instead of four. Statements on one
 * connection run in order, so the opening is in force for everything `fn` sends; if it fails, the
 * transaction is aborted, nothing after it runs, and its error is the one reported.
 */
async function inTransaction<O extends postgres.Row[], T>(
  open: (tx: postgres.Sql) => postgres.PendingQuery<O>,
  fn: (tx: Tx) => Promise<T>,
): Promise<{ value: T; opened: O }> {
  const reserved = await sql.reserve();
  const watch = new ConnectionWatch();
  const begun = reserved.unsafe("begin", [], watch.options).execute();
  const opening = open(reserved).execute();
  // Handled below, once `fn` has finished: an opening error outranks what it caused in `fn`.
  begun.catch(() => {});
  opening.catch(() => {});

  let outcome: { value: T } | { error: unknown };
  try {
    outcome = { value: await fn(guard(reserved, watch)) };
  } catch (error) {
    outcome = { error: watch.seen(error) };
  }
  const started = await Promise.allSettled([begun, opening]);
  const refusal = started.find((s) => s.status === "rejected")?.reason;
  try {
    if (refusal !== undefined || "error" in outcome) {
      if (!watch.lost) await reserved.unsafe("rollback").catch(() => {});
      throw watch.seen(refusal ?? ("error" in outcome ? outcome.error : undefined));
    }
    await reserved.unsafe("commit").catch((e) => {
      throw watch.seen(e);
    });
    return { value: outcome.value, opened: await opening };
  } finally {
    // A connection that closed goes back to the pool as closed (postgres.js reconnects it);
    // releasing it would hand it out as open.
    if (!watch.lost) {
      watch.detach();
      reserved.release();
    }
  }
}

/** The part of postgres.js's connection object the watch uses. */
interface PoolConnection {
  onclose: ((error: unknown) => void) | null;
}

/**
 * Learns when a reserved connection is gone: from a connection error a query of it reported (a
 * socket error reaches the queries before the close event), or from the close itself. postgres.js
 * calls a query's `onexecute` option with the connection it is written to, and a connection's
 * `onclose` when it closes; `sql.begin` uses the same two hooks. After a close, the pool may
 * reconnect that connection for another caller, so nothing more may be sent through this
 * reservation.
 */
class ConnectionWatch {
  lost = false;
  #connection: PoolConnection | null = null;

  /** Notes whether `error` means the connection is gone; returns it. */
  seen(error: unknown): unknown {
    if (isConnectionError(error)) this.lost = true;
    return error;
  }

  readonly options = {
    onexecute: (connection: PoolConnection): boolean => {
      this.#connection = connection;
      connection.onclose = () => (this.lost = true);
      return true; // keeps the connection writable for the next pipelined query
    },
  } as unknown as postgres.UnsafeQueryOptions;

  detach(): void {
    if (this.#connection) this.#connection.onclose = null;
  }
}

/** The reservation as handlers see it: a query after its connection closed fails (503) at once. */
function guard(reserved: postgres.ReservedSql, watch: ConnectionWatch): Tx {
  const refuseIfLost = () => {
    if (watch.lost) {
      throw Object.assign(new Error("The database connection closed during the transaction"), {
        code: "CONNECTION_CLOSED",
      });
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
