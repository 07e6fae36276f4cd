/**
 * Transactions as a request's caller: a role and claims known from the credential (`withRole`),
 * or an API key the database resolves (`withApiKey`), and reads of one statement.
 */
import type postgres from "postgres";
import type { Claims } from "../auth/jwt.ts";
import type { Tx } from "./pool.ts";
import { inTransaction, type TransactionOptions } from "./transaction.ts";

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
