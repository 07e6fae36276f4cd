import type postgres from "postgres";
import { createAccount } from "../../tests/support/accounts.ts";

/**
 * Adds `count` content sources owned by one new user, in the shares of a large homebrew
 * community: a tenth published, a fiftieth published behind an access key, the rest private.
 * None of them is readable by the benchmark's own accounts except the published ones without a
 * key, so a read policy that weighs every source shows as a slower read, not as a bigger answer.
 * Direct SQL as the admin connection: with no signed-in user the owner named here stands.
 */
export async function addSources(sql: postgres.Sql, count: number): Promise<void> {
  const owner = await createAccount(sql, 2);
  const published = Math.round(count / 10);
  const locked = Math.round(count / 50);
  await sql`
    insert into public.content_source (name, user_id, is_published, require_key, keys)
    select 'bench source ' || n, ${owner.user_id}::uuid,
      n <= ${published + locked},
      n > ${published} and n <= ${published + locked},
      case when n > ${published} and n <= ${published + locked}
        then jsonb_build_object('access_key', 'key ' || n) end
    from generate_series(1, ${count}::int) n`;
  await sql`analyze public.content_source`;
}
