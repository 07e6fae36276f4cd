import postgres from "postgres";
import { databaseUrl, env, REQUEST_LOGIN_ROLE, requestDatabase } from "./env.ts";
import type { Claims } from "./auth/jwt.ts";
import { isConnectionError } from "./db_errors.ts";
import { log } from "./log.ts";
import { Held, HELD_TRANSACTION_LIMIT_MS, type HeldTransaction } from "./held.ts";

/** A transaction handle: every query a request makes runs through one. */
export type Tx = postgres.Sql;

/** Longest a statement may run in Postgres before it cancels it (a connection parameter). */
const STATEMENT_TIMEOUT_MS = 5_000;
/** Longest a transaction may sit idle between statements before Postgres ends its session. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;
/** Longest a request waits for a connection of its own. */
const RESERVE_WAIT_MS = 3_000;
/**
 * Longest a request transaction may take from the moment it has its connection. A database that
 * is frozen (not down: its sockets stay open) runs no statement timeout, so this bound is kept
 * here: past it, the connection is dropped and the request answers 503.
 */
const TRANSACTION_DEADLINE_MS = 7_000;

const requestConnection = requestDatabase();

function openPool(url = requestConnection.url, max = env.DATABASE_POOL_SIZE): postgres.Sql {
  return postgres(url, {
    max,
    // Off, every query is sent unnamed, including those that ask for `prepare: true`.
    prepare: env.DATABASE_PREPARE,
    idle_timeout: 30,
    connect_timeout: 5,
    // postgres.js waits up to 20 s between reconnect attempts after repeated failures, and queued
    // queries wait with it; capped at half a second, a call fails fast (503) while the database is
    // down and the pool reconnects within a moment of it returning.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    onnotice: () => {},
    connection: {
      application_name: "rpg-builder-api",
      TimeZone: "UTC",
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
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
}

/**
 * The current pool. postgres.js 3.4.9 can lose track of reservations when connections close
 * while callers wait for one (a waiting `reserve()` is handed to a reconnect that drops it, and a
 * refused one stays queued and later swallows a connection): after a restart under load,
 * requests waited forever and the pool shrank to nothing. `reserveConnection` bounds the wait and
 * replaces the pool when it has stopped handing out connections it has.
 */
let pool = openPool();

// postgres.js fetches the array types on every new connection in a promise nothing awaits: a
// connection lost during that fetch rejected it unhandled, which ended the process (seen when the
// database went away under load). A lost connection's error is absorbed here, where the requests
// on that connection have already answered 503; any other unhandled rejection still ends the
// process.
globalThis.addEventListener("unhandledrejection", (event) => {
  if (!isConnectionError(event.reason)) return;
  event.preventDefault();
  log.warn("database_connection_lost", { reason: String(event.reason).slice(0, 200) });
});
/** Reservations handed out by the current pool and not yet given back. */
let held = 0;
let replacedAt = 0;

/**
 * The process-wide request pool (whichever pool is current), built once at module scope. It
 * connects as `api_authenticator`, which can do nothing until a request transaction switches role.
 */
export const sql: postgres.Sql = new Proxy(pool, {
  apply: (_target, self, args) => Reflect.apply(pool, self, args),
  get: (_target, property) => Reflect.get(pool, property, pool),
}) as postgres.Sql;

let ownerPool: postgres.Sql | null = null;

/**
 * A pool connected as the database owner, for local tools and tests only: never for a request. On
 * the embedded database it is the request pool itself, since one session serves both (outside a
 * request transaction that session is the owner's).
 */
export function ownerSql(): postgres.Sql {
  if (requestConnection.switchToLoginRole) return sql;
  ownerPool ??= openPool(databaseUrl(), 2);
  return ownerPool;
}

/** Ends the request pool and the owner's pool, if one was opened. */
export async function endPools(timeoutSeconds: number): Promise<void> {
  await Promise.all([
    sql.end({ timeout: timeoutSeconds }),
    ownerPool?.end({ timeout: timeoutSeconds }),
  ]);
}

/** Ends the current pool and opens a new one; requests still on the old one answer 503. */
function replacePool(): void {
  const old = pool;
  pool = openPool();
  held = 0;
  replacedAt = Date.now();
  // Terminates its connections and refuses whatever still waits on it.
  old.end({ timeout: 0 }).catch(() => {});
}

/** A connection of the caller's own, within RESERVE_WAIT_MS, or a connection error (503). */
async function reserveConnection(): Promise<{ reserved: postgres.ReservedSql; give: () => void }> {
  const from = pool;
  const reserving = from.reserve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<null>((
    resolve,
  ) => (timer = setTimeout(resolve, RESERVE_WAIT_MS, null)));
  const reserved = await Promise.race([reserving, timedOut]).finally(() => clearTimeout(timer));
  if (reserved === null) {
    // One that arrives after all goes straight back.
    reserving.then((late) => late.release(), () => {});
    // Waiting while the pool holds fewer reservations than connections means it lost some.
    if (
      from === pool && held < env.DATABASE_POOL_SIZE && Date.now() - replacedAt > RESERVE_WAIT_MS
    ) {
      replacePool();
    }
    throw connectionError("No database connection became free in time");
  }
  if (from === pool) held++;
  let given = false;
  return {
    reserved,
    give: () => {
      if (given) return;
      given = true;
      if (from === pool) held--;
    },
  };
}

function connectionError(message: string): Error {
  return Object.assign(new Error(message), { code: "CONNECT_TIMEOUT" });
}

/** Whom a transaction acts as: a user's claims, nobody (anon), or the service role. */
export type Acting = { role: "authenticated"; claims: Claims } | { role: "anon" } | {
  role: "service_role";
};

/**
 * Runs `fn` in one transaction as the given role with `request.jwt.claims` set transaction-locally,
 * exactly as PostgREST does, so every row-level policy applies to every statement in it. An
 * `authenticated` transaction first checks that the user still exists (401 otherwise).
 */
export async function withRole<T>(
  acting: Acting,
  fn: (tx: Tx) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const claims = acting.role === "authenticated" ? JSON.stringify(acting.claims) : "{}";
  const { value } = await inTransaction(
    (tx) => tx`select private.begin_request(${acting.role}, ${claims})${planMode(tx, options)}`,
    fn,
    options,
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
  options: TransactionOptions = {},
): Promise<{ value: T; acting: Acting }> {
  const { value, opened } = await inTransaction(
    (tx) =>
      tx<{ claims: string }[]>`
      select private.begin_api_key_request(${keyHash}, ${characterId}) as claims${
        planMode(tx, options)
      }`,
    fn,
    options,
  );
  const claims = opened[0]?.claims;
  if (claims === undefined) throw new Error("begin_api_key_request returned no claims");
  return { value, acting: { role: "authenticated", claims: JSON.parse(claims) } };
}

/** Whom a one-statement read acts as: a caller known from its credential, or an API key's hash. */
export type Reader = { acting: Acting } | { keyHash: string };

/**
 * A read of one statement: text built from server code constants only, with the caller's values
 * as its parameters `$1..$n`, each cast in the text (`$1::bigint[]`).
 */
export interface ReadStatement {
  text: string;
  params: readonly unknown[];
}

/**
 * Runs one read statement as `reader` in a transaction of one round trip: BEGIN, the opener, the
 * plan mode, the statement and COMMIT reach Postgres in one write, and their answers come back
 * together. Planning the policy-expanded statement costs Postgres more than running it, and its
 * plan does not depend on the values (ids, names): the transaction uses the cached generic plan,
 * which halved the Postgres CPU of a find by id (README, "Performance").
 */
export async function readInTransaction(
  reader: Reader,
  statement: ReadStatement,
): Promise<postgres.Row[]> {
  const read = (tx: Tx) =>
    tx.unsafe(statement.text, statement.params as never[], { prepare: true }).execute();
  return await asReader(reader, read, { commitAhead: true, genericPlans: true });
}

/** Runs `fn` in one transaction as `reader`: an API key's user, or a caller known already. */
async function asReader<T>(
  reader: Reader,
  fn: (tx: Tx) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  return "keyHash" in reader
    ? (await withApiKey(reader.keyHash, null, fn, options)).value
    : await withRole(reader.acting, fn, options);
}

/** The opener's extra column that asks for cached generic plans, when `options` want them. */
function planMode(tx: postgres.Sql, options: TransactionOptions): postgres.PendingQuery<[]> {
  return options.genericPlans
    ? tx`, set_config('plan_cache_mode', 'force_generic_plan', true)`
    : tx``;
}

/** How a transaction runs. */
interface TransactionOptions {
  /**
   * COMMIT is sent right behind what `fn` sends before its first await, in the same write: a
   * transaction of one round trip. `fn` may send nothing after that (it fails if it tries); if
   * anything in the transaction failed, Postgres answers the COMMIT with a rollback.
   */
  commitAhead?: boolean;
  /** The opener also asks for cached generic plans for the rest of the transaction. */
  genericPlans?: boolean;
}

/**
 * The one transaction runner. BEGIN, the opening statement (which sets the role) and the
 * handler's first query are sent without waiting for one another, so they reach Postgres in one
 * write and a request costs two round trips (that, and COMMIT) instead of four; a read sends its
 * COMMIT in the same write too (`commitAhead`), one round trip. Statements on one connection run
 * in order, so the opening is in force for everything `fn` sends; if it fails, the transaction is
 * aborted, nothing after it runs, and its error is the one reported.
 */
async function inTransaction<O extends postgres.Row[], T>(
  open: (tx: postgres.Sql) => postgres.PendingQuery<O>,
  fn: (tx: Tx) => Promise<T>,
  options: TransactionOptions = {},
): Promise<{ value: T; opened: O }> {
  const { reserved, give } = await reserveConnection();
  const watch = new ConnectionWatch();
  const deadline = watch.deadline(TRANSACTION_DEADLINE_MS);
  let handedOver = false;
  try {
    const begun = reserved.unsafe("begin", [], watch.options).execute();
    const switched = requestConnection.switchToLoginRole
      ? reserved.unsafe(`set local role ${REQUEST_LOGIN_ROLE}`).execute()
      : Promise.resolve();
    const opening = open(reserved).execute();
    // Handled below, once `fn` has finished: an opening error outranks what it caused in `fn`.
    begun.catch(() => {});
    switched.catch(() => {});
    opening.catch(() => {});

    const tx = guard(reserved, watch);
    // Called now, so what `fn` sends before its first await precedes a COMMIT sent ahead; a throw
    // becomes its rejection, answered by the rollback below like any failure of `fn`.
    const running = (async () => await fn(tx))();
    let committed: Promise<unknown> | null = null;
    if (options.commitAhead) {
      watch.sealed = true;
      committed = reserved.unsafe("commit").execute();
      committed.catch(() => {});
    }
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await Promise.race([running, deadline]) };
    } catch (error) {
      outcome = { error: watch.seen(error) };
    }
    const started = await Promise.race([Promise.allSettled([begun, switched, opening]), deadline]);
    const refusal = started.find((s) => s.status === "rejected")?.reason;
    if (refusal !== undefined || "error" in outcome) {
      // A COMMIT sent ahead ends the failed transaction as a rollback.
      const ending = committed ?? reserved.unsafe("rollback");
      if (!watch.lost) await Promise.race([ending, deadline]).catch(() => {});
      throw watch.seen(refusal ?? ("error" in outcome ? outcome.error : undefined));
    }
    if (!committed && outcome.value instanceof Held) {
      const opened = await opening;
      outcome.value.attach(holdOpen(reserved, watch, give, outcome.value));
      handedOver = true;
      return { value: outcome.value, opened };
    }
    await Promise.race([committed ?? reserved.unsafe("commit"), deadline]).catch((e) => {
      throw watch.seen(e);
    });
    return { value: outcome.value, opened: await opening };
  } finally {
    if (!handedOver) {
      watch.stopDeadline();
      give();
      // A connection that closed goes back to the pool as closed (postgres.js reconnects it);
      // releasing it would hand it out as open.
      if (!watch.lost) {
        watch.detach();
        reserved.release();
      }
    }
  }
}

// ---- Held transactions (`held.ts`): a handler's answer that reads on while it is sent.

function holdOpen(
  reserved: postgres.ReservedSql,
  watch: ConnectionWatch,
  give: () => void,
  holder: Held,
): HeldTransaction {
  watch.stopDeadline();
  let working: Promise<unknown> = Promise.resolve();
  let ending: Promise<void> | null = null;
  const end = (commit: boolean): Promise<void> =>
    ending ??= (async () => {
      clearTimeout(limit);
      await working.catch(() => {});
      const deadline = watch.deadline(TRANSACTION_DEADLINE_MS);
      try {
        if (!watch.lost || commit) {
          await Promise.race([
            guard(reserved, watch).unsafe(commit ? "commit" : "rollback"),
            deadline,
          ])
            .catch((e) => {
              if (commit) throw watch.seen(e);
            });
        }
      } finally {
        watch.stopDeadline();
        give();
        if (!watch.lost) {
          watch.detach();
          reserved.release();
        }
      }
    })();
  const limit = setTimeout(() => {
    end(false).catch(() => {});
    holder.expired();
  }, HELD_TRANSACTION_LIMIT_MS);
  return {
    work<R>(query: (tx: Tx) => Promise<R>): Promise<R> {
      if (ending) return Promise.reject(new Error("The held transaction has ended"));
      const run = (async () => {
        const deadline = watch.deadline(TRANSACTION_DEADLINE_MS);
        try {
          return await Promise.race([query(guard(reserved, watch)), deadline]);
        } catch (e) {
          throw watch.seen(e);
        } finally {
          watch.stopDeadline();
        }
      })();
      working = run;
      return run;
    },
    end,
  };
}

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
class ConnectionWatch {
  lost = false;
  /** Set once COMMIT has been sent ahead: the transaction takes no more statements. */
  sealed = false;
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
function guard(reserved: postgres.ReservedSql, watch: ConnectionWatch): Tx {
  const refuseIfLost = () => {
    if (watch.lost) {
      throw Object.assign(new Error("The database connection closed during the transaction"), {
        code: "CONNECTION_CLOSED",
      });
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
