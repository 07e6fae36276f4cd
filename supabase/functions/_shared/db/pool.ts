/**
 * The request pool: one per process (or function instance), connected as the login role requests
 * use, and the reservation of a connection for one transaction.
 */
import postgres from "postgres";
import { env, requestDatabaseUrl } from "../env.ts";
import { withLiteralValues } from "./postgres_js_workarounds.ts";

/** A transaction handle: every query a request makes runs through one. */
export type Tx = postgres.ISql;

/** Longest a statement may run in Postgres before it cancels it (a connection parameter). */
const STATEMENT_TIMEOUT_MS = 5_000;
/** Longest a transaction may sit idle between statements before Postgres ends its session. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;
/** Longest a request waits for a connection of its own. */
const RESERVE_WAIT_MS = 3_000;
/**
 * Longest a request transaction may take from the moment it has its connection. A database that
 * is frozen (not down: its sockets stay open) runs no statement timeout, so this bound is kept
 * here: past it, the connection is dropped and the request answers 503. postgres.js's own
 * `query_timeout` cancels a statement of the pool's that runs as long.
 */
export const TRANSACTION_DEADLINE_MS = 7_000;
/** How long a cancel may go unanswered before postgres.js closes the connection. */
const CANCEL_WAIT_S = 1;

/** Where requests connect (the embedded database ignores the user name: its one session serves all). */
const REQUEST_URL = requestDatabaseUrl();

/** A pool with the options every connection of this project uses: the request pool's, at `url`. */
export function openPool(url = REQUEST_URL, max = env.DATABASE_POOL_SIZE): postgres.Sql {
  return postgres(url, {
    max,
    // Off, every query is sent unnamed, including those that ask for `prepare: true`.
    prepare: env.DATABASE_PREPARE,
    // The built-in types, arrays included, are known without asking: a fetch costs a round trip,
    // and on the embedded database's one session it waits behind any open transaction.
    fetch_types: false,
    idle_timeout: 30,
    connect_timeout: 5,
    queue_timeout: RESERVE_WAIT_MS / 1000,
    query_timeout: TRANSACTION_DEADLINE_MS / 1000,
    cancel_timeout: CANCEL_WAIT_S,
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
 * The process-wide request pool, built once at module scope. It connects as `api_authenticator`,
 * which can do nothing until a request transaction switches role.
 */
export const sql: postgres.Sql = openPool();

/** A reservation started before a request asked for one (`openEarly`), until one takes it. */
let early: Promise<postgres.ReservedSql> | null = null;

/**
 * Starts opening a connection before any request asks for one. On the platform an instance starts
 * because a request is waiting for it: its first connection (start-up and authentication through
 * the pooler) then opens while that request's credential and body are checked, and the request's
 * reservation takes it. Not taken within RESERVE_WAIT_MS, it goes back to the pool.
 */
export function openEarly(): void {
  if (early !== null) return;
  const reserving = sql.reserve();
  early = reserving;
  reserving.catch(() => {
    if (early === reserving) early = null;
  });
  const unused = setTimeout(() => {
    if (early !== reserving) return;
    early = null;
    reserving.then((reserved) => reserved.release(), () => {});
  }, RESERVE_WAIT_MS);
  Deno.unrefTimer(unused);
}

/** The early reservation, once. */
function takeEarly(): Promise<postgres.ReservedSql> | null {
  const taken = early;
  early = null;
  return taken;
}

/** A connection of the caller's own, within RESERVE_WAIT_MS, or a connection error (503). */
export async function reserveConnection(): Promise<postgres.ReservedSql> {
  const reserved = await (takeEarly() ?? sql.reserve());
  // Unnamed, a statement with parameters costs a round trip of its own (postgres_js_workarounds.ts).
  return withLiteralValues(reserved, env.DATABASE_PREPARE);
}

/** An error that answers 503, as a lost or unavailable connection does. */
export function connectionError(message: string): Error {
  return Object.assign(new Error(message), { code: "CONNECT_TIMEOUT" });
}
