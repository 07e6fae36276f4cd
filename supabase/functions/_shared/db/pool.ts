/**
 * The request pool: one per process (or function instance), connected as the login role requests
 * use, with the driver's workarounds, and the reservation of a connection for one transaction.
 */
import postgres from "postgres";
import { databaseUrl, env, requestDatabase } from "../env.ts";
import { isConnectionError } from "../db_errors.ts";
import { log } from "../log.ts";
import { withLiteralValues } from "./literal_values.ts";
import { databaseSocket } from "./database_socket.ts";
import { ARRAY_TYPES } from "./array_types.ts";
import { installImmediate } from "../immediate.ts";

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
export const TRANSACTION_DEADLINE_MS = 7_000;

// postgres.js flushes each write on `setImmediate`, which the platform's Deno delays (immediate.ts).
installImmediate();

/** Where requests connect, and whether each transaction switches to the login role itself. */
export const requestConnection = requestDatabase();

/** postgres.js takes a socket factory (database_socket.ts), which its types do not declare. */
const SOCKET: Record<string, unknown> = { socket: databaseSocket };

/**
 * Whether connections to `url` use TLS, by postgres.js's own reading of it: `sslmode` or `ssl` in
 * its query, or `sslrootcert=system`.
 */
function usesTls(url: string): boolean {
  const query = new URL(url).searchParams;
  if (query.get("sslrootcert") === "system") return true;
  const mode = query.get("sslmode") ?? query.get("ssl");
  return mode !== null && !["disable", "false"].includes(mode);
}

function openPool(url = requestConnection.url, max = env.DATABASE_POOL_SIZE): postgres.Sql {
  return postgres(url, {
    ...SOCKET,
    max,
    // Off, every query is sent unnamed, including those that ask for `prepare: true`.
    prepare: env.DATABASE_PREPARE,
    // The array types the project uses are parsed here (array_types.ts) instead of fetched on every
    // new connection; through TLS the fetch stays (database_socket.ts says why).
    fetch_types: usesTls(url),
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
      ...ARRAY_TYPES,
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

// Through TLS, postgres.js fetches the array types on every new connection in a promise nothing
// awaits: a connection lost during that fetch rejected it unhandled, which ended the process (seen
// when the database went away under load). A lost connection's error is absorbed here, where the
// requests on that connection have already answered 503; any other unhandled rejection still ends
// the process.
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

/** A reservation started before a request asked for one (`openEarly`), until one takes it. */
let early: { from: postgres.Sql; reserving: Promise<postgres.ReservedSql> } | null = null;

/**
 * Starts opening a connection before any request asks for one. On the platform an instance starts
 * because a request is waiting for it: its first connection (start-up and authentication through
 * the pooler) then opens while that request's credential and body are checked, and the request's
 * reservation takes it. Not taken within RESERVE_WAIT_MS, it goes back to the pool.
 */
export function openEarly(): void {
  if (early !== null) return;
  const entry = { from: pool, reserving: pool.reserve() };
  early = entry;
  entry.reserving.catch(() => {
    if (early === entry) early = null;
  });
  const unused = setTimeout(() => {
    if (early !== entry) return;
    early = null;
    entry.reserving.then((reserved) => reserved.release(), () => {});
  }, RESERVE_WAIT_MS);
  Deno.unrefTimer(unused);
}

/** The early reservation, once, if it belongs to `from` (the pool may have been replaced since). */
function takeEarly(from: postgres.Sql): Promise<postgres.ReservedSql> | null {
  const taken = early?.from === from ? early.reserving : null;
  early = null;
  return taken;
}

/** A connection of the caller's own, within RESERVE_WAIT_MS, or a connection error (503). */
export async function reserveConnection(): Promise<
  { reserved: postgres.ReservedSql; give: () => void }
> {
  const from = pool;
  const reserving = takeEarly(from) ?? from.reserve();
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
    // Unnamed, a statement with parameters costs a round trip of its own (literal_values.ts).
    reserved: withLiteralValues(reserved, env.DATABASE_PREPARE),
    give: () => {
      if (given) return;
      given = true;
      if (from === pool) held--;
    },
  };
}

/** An error that answers 503, as a lost or unavailable connection does. */
export function connectionError(message: string): Error {
  return Object.assign(new Error(message), { code: "CONNECT_TIMEOUT" });
}
