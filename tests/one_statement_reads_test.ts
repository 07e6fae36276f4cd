import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { signLocalAnonKey } from "../supabase/functions/_shared/auth/jwt.ts";
import {
  adminSql,
  call,
  type CallResult,
  failMessage,
  makeApiKey,
  makeUser,
  server,
  successData,
  test,
} from "./_harness.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { realPostgresUrl } from "./support/test_database.ts";

// Issue 18: a find is sent as one statement on the shared pool (`private.read_as`) instead of a
// transaction of its own. It must answer exactly as the transaction does, as the same caller.

const READ_AS = "private.read_as(text, text, text, text, text[])";

test("no request role may call private.read_as", async () => {
  const [row] = await adminSql<{ roles: string[] | null }[]>`
    select array_agg(r.rolname order by r.rolname) as roles
    from pg_roles r
    where r.rolname in ('anon', 'authenticated', 'service_role')
      and has_function_privilege(r.rolname, ${READ_AS}, 'execute')`;
  deepStrictEqual(row?.roles, null);
  const [open] = await adminSql<{ granted: boolean }[]>`
    select exists (
      select from pg_proc p, aclexplode(p.proacl) a
      where p.oid = ${READ_AS}::regprocedure and a.grantee = 0
    ) as granted`;
  equal(open?.granted, false, "PUBLIC holds no execute grant");
});

test("private.read_as plans as the caller: another user's private row stays invisible", async () => {
  const { alice, spell } = await privateSpell();
  const statement = "select t.id from public.spell t where t.id = any($1::bigint[])";
  const read = (role: string, claims: string) =>
    adminSql<{ id: number }[]>`
      select * from private.read_as(${role}, ${claims}, null, ${statement}, ${[`{${spell}}`]})
        as r(id bigint)`;
  deepStrictEqual((await read("anon", "{}")).map((r) => r.id), []);
  const bob = await makeUser();
  const claimsOf = (userId: string) => JSON.stringify({ sub: userId, role: "authenticated" });
  deepStrictEqual((await read("authenticated", claimsOf(bob.user_id))).map((r) => r.id), []);
  deepStrictEqual((await read("authenticated", claimsOf(alice.user_id))).map((r) => r.id), [
    spell,
  ]);
  // The statement cannot write, whatever it is.
  await rejects(
    adminSql`select * from private.read_as('service_role', '{}', null,
      'delete from public.spell where id = 0 returning id', '{}') as r(id bigint)`,
    { code: "25006" },
  );
  // An unknown key is refused by the opener, as in a transaction.
  await rejects(
    adminSql`select * from private.read_as(null, null, 'no such key', 'select 1', '{}')
      as r(n integer)`,
    { code: "PT401" },
  );
});

test("find answers as one statement exactly as in a transaction", async () => {
  const { alice, spell, source } = await privateSpell();
  const bob = await makeUser();
  const aliceKey = (await makeApiKey(alice)).apiKey;
  const bobKey = (await makeApiKey(bob)).apiKey;
  const anon = await signLocalAnonKey();
  const calls: [string, unknown, string, string?][] = [
    ["owner's source by id", { id: source }, alice.access_token, "find-content-source"],
    ["another user's source by id", { id: source }, bobKey, "find-content-source"],
    ["owner by id, JWT", { id: spell }, alice.access_token],
    ["owner by id, API key", { id: spell }, aliceKey],
    ["owner by ids and name", { id: [1, spell], name: "Hidden probe" }, alice.access_token],
    ["owner by source", { content_sources: [source] }, aliceKey],
    ["another user by id, JWT", { id: spell }, bob.access_token],
    ["another user by ids, API key", { id: [1, spell] }, bobKey],
    ["visitor by id", { id: spell }, anon],
    ["visitor, official by name", { name: "kindle spark" }, anon],
    ["unknown API key", { id: 1 }, crypto.randomUUID()],
  ];
  const answers = async (functionsUrl: string) => {
    const out: [string, number, unknown][] = [];
    for (const [label, body, token, fn = "find-spell"] of calls) {
      const res = await fetch(`${functionsUrl}/${fn}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "x-forwarded-for": `10.${rand()}.${rand()}.${rand()}`,
        },
        body: JSON.stringify(body),
      });
      out.push([label, res.status, await res.json()]);
    }
    return out;
  };
  const fast = await answers(server.functionsUrl);
  const byLabel = new Map(fast.map(([label, status, body]) => [label, { status, body }]));
  const data = (label: string) => successData(byLabel.get(label) as CallResult);
  equal(data("owner's source by id")?.id, source);
  equal(data("another user's source by id"), null);
  equal(data("owner by id, JWT")?.id, spell);
  equal(data("owner by id, API key")?.id, spell);
  deepStrictEqual(data("owner by ids and name").map((r: { id: number }) => r.id), [spell]);
  deepStrictEqual(data("owner by source").map((r: { id: number }) => r.id), [spell]);
  equal(data("another user by id, JWT"), null);
  deepStrictEqual(data("another user by ids, API key").map((r: { id: number }) => r.id), [1]);
  equal(data("visitor by id"), null);
  deepStrictEqual(data("visitor, official by name").map((r: { id: number }) => r.id), [1]);
  equal(failMessage(byLabel.get("unknown API key") as CallResult, 401), "Invalid API Key");

  // On real Postgres, a second server on the same database runs the same reads in transactions.
  const databaseUrl = realPostgresUrl() ? Deno.env.get("DATABASE_URL") : undefined;
  if (!databaseUrl) return;
  const inTransaction = await ServerProcess.start({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "silent",
    ONE_STATEMENT_READS: "0",
  });
  try {
    deepStrictEqual(await answers(inTransaction.functionsUrl), fast);
  } finally {
    await inTransaction.stop();
  }
});

/** A spell in an unpublished source of a new user's. */
async function privateSpell() {
  const alice = await makeUser({ tier: 2 });
  const opt = { token: alice.access_token };
  const source = successData(
    await call("create-content-source", { name: "Alice hidden", is_published: false }, opt),
  ).id as number;
  const spell = successData(
    await call("create-spell", { name: "Hidden probe", rank: 1, content_source_id: source }, opt),
  ).id as number;
  return { alice, spell, source };
}

function rand(): number {
  return Math.floor(Math.random() * 250) + 1;
}
