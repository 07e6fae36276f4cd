/**
 * Transactions as a request's caller, given as the credential established it (`Identity`): a role
 * and claims known already, or an API key the database resolves in the statement that opens the
 * transaction.
 */
import type postgres from "postgres";
import type { Identity } from "../auth/identity.ts";
import type { Tx } from "./pool.ts";
import { inTransaction, type TransactionOptions } from "./transaction.ts";
import { REQUEST_ROLES } from "./request_roles.ts";

/** How a transaction as a caller runs. */
export interface CallerTransactionOptions extends TransactionOptions {
  /**
   * Under an API key: the character the call targets. The key needs a grant on it, and the
   * transaction acts as the character's owner.
   */
  characterId?: number | null;
}

/**
 * Runs `fn` in one transaction as `caller`, with the role and `request.jwt.claims` set
 * transaction-locally exactly as PostgREST does, so every row-level policy applies to every
 * statement in it. A session first checks that its user still exists (401 otherwise); an API key
 * is resolved by its hash (401 unknown or revoked, 403 without the grant). Returns the result with
 * whom the transaction acted as: for an API key, its user's session, for a later transaction as
 * the same caller without a second lookup.
 */
export async function asCaller<T>(
  caller: Identity,
  fn: (tx: Tx) => Promise<T>,
  options: CallerTransactionOptions = {},
): Promise<{ value: T; actedAs: Identity }> {
  if (caller.kind === "api_key") {
    const { value, opened } = await inTransaction(
      (tx) =>
        tx<{ claims: string }[]>`
        select private.begin_api_key_request(${caller.keyHash}, ${options.characterId ?? null})
          as claims${openerSettings(tx, options)}`,
      fn,
      options,
    );
    const claims = opened[0]?.claims;
    if (claims === undefined) throw new Error("begin_api_key_request returned no claims");
    return { value, actedAs: { kind: "jwt", claims: JSON.parse(claims) } };
  }
  const [role, claims] = caller.kind === "jwt"
    ? [REQUEST_ROLES.authenticated, JSON.stringify(caller.claims)]
    : [caller.kind === "service" ? REQUEST_ROLES.service : REQUEST_ROLES.anon, "{}"];
  const { value } = await inTransaction(
    (tx) => tx`select private.begin_request(${role}, ${claims})${openerSettings(tx, options)}`,
    fn,
    options,
  );
  return { value, actedAs: caller };
}

/**
 * A read of one statement: text built from server code constants only, with the caller's values
 * as its parameters `$1..$n`, each cast in the text (`$1::bigint[]`).
 */
export interface ReadStatement {
  text: string;
  params: readonly unknown[];
}

/**
 * How a one-statement read runs: BEGIN, the opener (which sets the plan mode and read-only too), the
 * statement and COMMIT reach Postgres in one write, and their answers come back together. Planning
 * the policy-expanded statement costs Postgres more than running it, and its plan does not depend
 * on the values (ids, names): the transaction uses the cached generic plan, which halved the
 * Postgres CPU of a find by id (docs/performance.md).
 */
export const ONE_ROUND_TRIP_READ: TransactionOptions = {
  commitAhead: true,
  genericPlans: true,
  readOnly: true,
};

/** Sends a read statement in `tx`, as a named statement when the pool prepares them. */
export function readStatement(tx: Tx, statement: ReadStatement): Promise<postgres.Row[]> {
  return tx.unsafe(statement.text, statement.params as never[], { prepare: true }).execute();
}

/**
 * The opener's extra columns, evaluated after it in order (it may note an API key's use): JIT off,
 * and cached generic plans and a read-only transaction when `options` want them. A setting in the
 * opening statement costs Postgres less than a statement of its own. JIT compiles a plan the
 * planner costs high (a scan over many rows, most of them hidden from the caller) before it runs:
 * 0.5-1.2 s for a request's few rows, and a cancel at the statement timeout does not stop it.
 */
function openerSettings(tx: postgres.ISql, options: TransactionOptions): postgres.PendingQuery<[]> {
  const noJit = tx<[]>`, set_config('jit', 'off', true) as jit`;
  const plans = options.genericPlans
    ? tx<[]>`${noJit}, set_config('plan_cache_mode', 'force_generic_plan', true) as plan_mode`
    : noJit;
  return options.readOnly
    ? tx<[]>`${plans}, set_config('transaction_read_only', 'on', true) as read_only`
    : plans;
}
