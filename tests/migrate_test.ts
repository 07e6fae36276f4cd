// scripts/server/migrate.ts on a database built before later migration files were folded into the
// baselines: it must refuse it with a message that says how to start again, not half-apply.
import { equal, match, rejects } from "node:assert/strict";
import postgres from "postgres";
import { listMigrations, migrate } from "../scripts/server/migrate.ts";
import { freshDatabase } from "../scripts/support/fresh_database.ts";
import { realPostgresUrl } from "./support/test_database.ts";

/** The versions the files folded into the baselines recorded in a database made before the fold. */
const FOLDED_VERSIONS = [
  "20261123152200",
  "20261123153000",
  "20261123153600",
  "20261123153700",
  "20261123155500",
  "20261123190100",
  "20261123190200",
  "20261123190300",
  "20261123190500",
  "20261123190600",
  "20261126000100",
  "20261126000200",
  "20261126000300",
  "20261126000400",
  "20261126000500",
  "20261126000600",
  "20261126000700",
];

const serverUrl = realPostgresUrl();

Deno.test({
  name: "migrate refuses a database that recorded migration files since folded into the baselines",
  // Needs a server to create a database on; the embedded run has none to spare.
  ignore: serverUrl === null,
  async fn() {
    const db = await freshDatabase(serverUrl!, "rpgmigrate");
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const recorded = [...(await listMigrations()).map((f) => f.version), ...FOLDED_VERSIONS];
      await sql.unsafe(`
        create schema supabase_migrations;
        create table supabase_migrations.schema_migrations (
          version text primary key, statements text[], name text);`);
      for (const version of recorded) {
        await sql`insert into supabase_migrations.schema_migrations (version) values (${version})`;
      }
      await rejects(migrate(sql, { seed: false }), (e: Error) => {
        match(e.message, /20261123152200, 20261123153000/);
        match(e.message, /20261123155500, 20261123190100/);
        match(e.message, /20261123190600, 20261126000100, 20261126000200/);
        match(e.message, /20261126000600, 20261126000700\)/);
        match(e.message, /folded into those baselines/);
        match(e.message, /start from an empty one/);
        return true;
      });
      const tables = await sql`select 1 from pg_tables where schemaname = 'public'`;
      equal(tables.length, 0, "nothing was applied");
    } finally {
      await sql.end();
      await db.drop();
    }
  },
});
