/**
 * The database owner's pool, for the local server's own routes, the tools and the tests: never for
 * a request. Import it once the environment is set (the pools read it when they load).
 */
import type postgres from "postgres";
import { openPool, sql } from "../../supabase/functions/_shared/db/pool.ts";
import { databaseUrl } from "../../supabase/functions/_shared/env.ts";

let ownerPool: postgres.Sql | null = null;

/**
 * A pool connected as the owner. On the embedded database it is the request pool itself: its one
 * session, shared by every connection, is the owner's outside a request transaction, and sharing
 * one connection keeps that session's statements from interleaving.
 */
export function ownerSql(): postgres.Sql {
  if (Deno.env.get("DATABASE_EMBEDDED") === "1") return sql;
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
