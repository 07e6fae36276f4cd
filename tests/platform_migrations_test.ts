/**
 * The migrations apply as the hosted platform applies them, on the embedded Postgres too (PGlite,
 * Postgres 17 like new hosted projects): run by a role shaped like the platform's `postgres` (no
 * superuser; CREATEROLE; the request roles granted with admin option, as the platform grants them
 * on Postgres 16 and later), over the platform's roles, default privileges and `auth`/`storage`
 * schemas (scripts/hosted/platform.sql). PGlite's own superuser is named `postgres` and cannot be
 * demoted, so here the platform's `postgres` is `platform_owner` and `supabase_admin` is PGlite's
 * superuser; the real-Postgres emulation (TEST_TARGET=hosted) uses the real names.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";
import { uuid_ossp } from "@electric-sql/pglite/contrib/uuid_ossp";
import { listMigrations } from "../scripts/server/migrate.ts";
import { test } from "./_harness.ts";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";

const root = new URL("../", import.meta.url);

/** platform.sql with the platform's `postgres` renamed and its superuser PGlite's own. */
async function platformSqlForPglite(): Promise<string> {
  const text = await Deno.readTextFile(new URL("scripts/hosted/platform.sql", root));
  return text
    .replace("alter database postgres owner to postgres;", "alter database @db owner to postgres;")
    .replace(/\bpostgres\b/g, "platform_owner")
    .replace("@db", "postgres")
    .replaceAll("supabase_admin", "postgres")
    .replace(
      /^grant anon, authenticated, service_role to platform_owner;$/m,
      "grant anon, authenticated, service_role to platform_owner with admin option;",
    );
}

test("the migrations apply as the platform's non-superuser owner on the embedded Postgres", async () => {
  const db = await PGlite.create({ extensions: { pg_trgm, pgcrypto, uuid_ossp } });
  try {
    await db.exec(await platformSqlForPglite());
    const [owner] = (await db.query<{ rolsuper: boolean; rolcreaterole: boolean }>(
      "select rolsuper, rolcreaterole from pg_roles where rolname = 'platform_owner'",
    )).rows;
    deepStrictEqual(owner, { rolsuper: false, rolcreaterole: true });

    await db.exec("set role platform_owner");
    for (const migration of await listMigrations()) {
      await db.exec(await Deno.readTextFile(migration.path));
    }
    await db.exec(await Deno.readTextFile(new URL("supabase/seed.sql", root)));

    // What the migrations made is the owner's, and requests get exactly the roles they switch to.
    const memberships = (await db.query<{ role: string }>(
      `select r.rolname as role from pg_auth_members m
       join pg_roles r on r.oid = m.roleid join pg_roles u on u.oid = m.member
       where u.rolname = 'api_authenticator' order by 1`,
    )).rows.map((r) => r.role);
    deepStrictEqual(memberships, [
      "anon",
      "authenticated",
      REQUEST_ROLES.anon,
      REQUEST_ROLES.authenticated,
      "service_role",
    ]);
    const [spells] = (await db.query<{ n: number }>(
      "select count(*)::int as n from public.spell",
    )).rows;
    equal((spells?.n ?? 0) > 0, true, "the seed's reference content is in place");
    const [buckets] = (await db.query<{ n: number }>(
      "select count(*)::int as n from storage.buckets where public",
    )).rows;
    equal(buckets?.n, 2, "the upload buckets are declared");
  } finally {
    await db.close();
  }
});
