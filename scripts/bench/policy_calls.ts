/**
 * Function calls and time of find-character by `user_id` over one owner's 1,000 characters (100
 * of them granted to one of the owner's API clients, which the owner sees in `details`), as that
 * owner: the row policies' calls (a `count(*)` under the same policies) and the whole find
 * (find-character's own statement, select list included), counted per function by Postgres
 * (`track_functions = all`, read from `pg_stat_xact_user_functions` in the same transaction), and
 * the find's execution time in Postgres, median and best of 30 runs.
 *
 *   deno run -A --node-modules-dir=auto scripts/bench/policy_calls.ts
 *
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, a superuser:
 * `track_functions` is a superuser setting), used to create and drop the benchmark's own database.
 */
import postgres from "postgres";
import { freshDatabase } from "../support/fresh_database.ts";
import { migrate } from "../server/migrate.ts";
import { REQUEST_ROLES } from "../../supabase/functions/_shared/db/request_roles.ts";
import { selectCharacters } from "../../supabase/functions/_shared/characters/characters.ts";

const CHARACTERS = 1_000;
const GRANTED = 100;
const RUNS = 30;

const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = await freshDatabase(databaseUrl, "bench_policy_calls");
/** The last statement sent, as Postgres received it (find-character's, for EXPLAIN ANALYZE). */
let sent: { text: string; params: unknown[] } = { text: "", params: [] };
const sql = postgres(database.url, {
  max: 1,
  onnotice: () => {},
  debug: (_connection, text, params) => sent = { text, params },
});

/** Runs `fn` in a transaction on a reserved connection (as the functions do), rolled back. */
async function inTransaction<T>(fn: (tx: postgres.ISql) => Promise<T>): Promise<T> {
  const reserved = await sql.reserve();
  try {
    await reserved`begin`;
    return await fn(reserved);
  } finally {
    await reserved`rollback`;
    reserved.release();
  }
}

/**
 * Calls per function made by `statement` as the owner: what the transaction's counters gained
 * while it ran (they may also hold calls of earlier transactions not yet reported).
 */
async function callsOf(
  claims: string,
  statement: (tx: postgres.ISql) => Promise<unknown>,
): Promise<Record<string, number>> {
  const counters = (tx: postgres.ISql) =>
    tx<{ name: string; calls: number }[]>`
      select schemaname || '.' || funcname as name, calls::int as calls
      from pg_stat_xact_user_functions`.then((rows) => new Map(rows.map((r) => [r.name, r.calls])));
  return await inTransaction(async (tx) => {
    await tx`set local track_functions = 'all'`;
    await tx`select private.begin_request(${REQUEST_ROLES.authenticated}, ${claims})`;
    await tx`reset role`;
    const before = await counters(tx);
    await tx`select set_config('role', ${REQUEST_ROLES.authenticated}, true)`;
    await statement(tx);
    await tx`reset role`;
    const after = await counters(tx);
    return Object.fromEntries(
      [...after].map(([name, calls]) => [name, calls - (before.get(name) ?? 0)] as const)
        .filter(([, calls]) => calls > 0).sort((a, b) => b[1] - a[1]),
    );
  });
}

/** Postgres's execution time of `text` as the owner (EXPLAIN ANALYZE), per run. */
async function timesOf(claims: string, text: string, params: unknown[]): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    times.push(
      await inTransaction(async (tx) => {
        await tx`select private.begin_request(${REQUEST_ROLES.authenticated}, ${claims})`;
        const [row] = await tx.unsafe(
          `explain (analyze, timing off, format json) ${text}`,
          params as never[],
        );
        const [plan] = row?.["QUERY PLAN"] as { "Execution Time": number }[];
        return plan?.["Execution Time"] ?? NaN;
      }),
    );
  }
  return times.sort((a, b) => a - b);
}

try {
  await migrate(sql, { seed: false });
  const owner = crypto.randomUUID();
  await sql`insert into auth.users (id, email) values (${owner}, ${`${owner}@example.test`})`;
  await sql`update public.public_user set supporter_tier = 2 where user_id = ${owner}`;
  await sql`
    insert into public.character (user_id, name)
    select ${owner}::uuid, 'Hero ' || n from generate_series(1, ${CHARACTERS}) n`;
  await sql`
    with client as (
      insert into public.api_client (user_id, name) values (${owner}, 'Tool') returning id
    )
    insert into public.character_grant (client_id, character_id)
    select client.id, c.id from client, public.character c
    where c.user_id = ${owner} order by c.id limit ${GRANTED}`;
  await sql`analyze public.character`;
  await sql`analyze public.character_grant`;
  const claims = JSON.stringify({ sub: owner, role: "authenticated" });

  const policy = await callsOf(
    claims,
    (tx) => tx`select count(*) from public.character c where c.user_id = ${owner}::uuid`.execute(),
  );
  let rows = 0;
  const find = await callsOf(claims, async (tx) => {
    rows = (await selectCharacters(tx, { user_id: owner })).length;
  });
  let statement = sent;
  await callsOf(claims, async (tx) => {
    await selectCharacters(tx, { user_id: owner });
    statement = sent;
  });
  const times = await timesOf(claims, statement.text, statement.params);
  const median = times[Math.floor(times.length / 2)] ?? NaN;
  console.log(JSON.stringify(
    {
      characters: CHARACTERS,
      granted: GRANTED,
      rows,
      policy_calls: policy,
      find_calls: find,
      find_ms: { median: Number(median.toFixed(2)), best: Number((times[0] ?? NaN).toFixed(2)) },
    },
    null,
    2,
  ));
} finally {
  await sql.end();
  await database.drop();
}
