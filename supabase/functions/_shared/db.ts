import postgres from "postgres";
import { databaseUrl, env } from "./env.ts";
import type { Claims } from "./auth/jwt.ts";

/** A transaction handle: every query a request makes runs through one. */
export type Tx = postgres.TransactionSql;

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
 * exactly as PostgREST does, so every row-level policy applies to every statement in it.
 */
export async function withRole<T>(acting: Acting, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await sql.begin((tx) => actAs(tx, acting, fn));
  return result as T;
}

/**
 * `withRole` for a caller known only after a credential lookup: `resolve` runs first, in the same
 * transaction, as the service role (the only role granted the lookups); then the role and claims it
 * returns are set, and `fn` runs under them. One transaction instead of a lookup transaction and a
 * request transaction saves a BEGIN/COMMIT pair per request. If `resolve` throws (an unknown key),
 * the transaction rolls back and `fn` never runs.
 */
export async function withResolvedRole<R extends { acting: Acting }, T>(
  resolve: (tx: Tx) => Promise<R>,
  fn: (tx: Tx, resolved: R) => Promise<T>,
): Promise<T> {
  const result = await sql.begin(async (tx) => {
    const resolved = await actAs(tx, { role: "service_role" }, resolve);
    return await actAs(tx, resolved.acting, (tx) => fn(tx, resolved));
  });
  return result as T;
}

/** Switches `tx` to the role and claims of `acting` (transaction-locally), then runs `fn`. */
async function actAs<T>(tx: Tx, acting: Acting, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const claims = acting.role === "authenticated" ? JSON.stringify(acting.claims) : "{}";
  // Sent without waiting: the next statement follows it on the same connection, in order, so the
  // role and claims are in force for it and a round trip is saved.
  const setup = tx`select set_config('role', ${acting.role}, true),
                          set_config('request.jwt.claims', ${claims}, true)`.execute();
  try {
    const value = await fn(tx);
    await setup;
    return value;
  } catch (e) {
    await setup; // a failed setup is the cause of whatever failed after it
    throw e;
  }
}
