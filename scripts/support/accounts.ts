import type postgres from "postgres";
import { upsertDevUser } from "../tools/dev_user.ts";
import { sha256Hex } from "../../supabase/functions/_shared/sha256.ts";
import { useRunSecrets } from "./run_secrets.ts";

// The JWT module validates the environment when it loads: it signs with the run's secret, which
// the server subprocesses (`ServerProcess`) verify with.
useRunSecrets();
const { signLocalAccessToken } = await import("./local_tokens.ts");

/** An account made directly in a server's database, with a one-hour access token. */
export interface Account {
  user_id: string;
  email: string;
  token: string;
}

/** Creates an account with the given supporter tier on the database behind `sql`. */
export async function createAccount(sql: postgres.Sql, tier = 0): Promise<Account> {
  const email = `fault-${crypto.randomUUID()}@example.test`;
  const user = await upsertDevUser(sql, { email, tier, admin: false });
  return { user_id: user.user_id, email, token: user.access_token };
}

/** Another access token for the same account: a separate rate-limit bucket. */
export async function tokenFor(account: Account): Promise<string> {
  return await signLocalAccessToken(account.user_id, account.email);
}

/**
 * Creates `count` API clients for an account in one statement and returns their keys. Keys are
 * stored hashed, as create-api-client stores them; this skips only the HTTP round trips.
 */
export async function createApiKeys(
  sql: postgres.Sql,
  userId: string,
  count: number,
): Promise<string[]> {
  const keys = Array.from({ length: count }, () => crypto.randomUUID());
  const hashes = keys.map((key) => sha256Hex(key));
  // Each client is named after its key's position, which pairs it with its hash.
  await sql`
    with input as (
      select hash, n from unnest(${hashes}::text[]) with ordinality as t(hash, n)
    ), made as (
      insert into public.api_client (user_id, name)
      select ${userId}::uuid, 'load client ' || n from input
      returning id, name
    )
    insert into private.api_key (key_hash, user_id, client_id)
    select input.hash, ${userId}::uuid, made.id
    from made join input on made.name = 'load client ' || input.n`;
  return keys;
}
