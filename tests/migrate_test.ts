// scripts/server/migrate.ts, which `deno task start` runs: on a database at the last release it
// applies the files added since and nothing else; a database built before the first release, when
// later migration files were folded into the baselines, is refused with a message that says how to
// start again, not half-applied.
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import postgres from "postgres";
import { listMigrations, migrate } from "../scripts/server/migrate.ts";
import { migrationsByRelease, releasedSeed } from "../scripts/support/releases.ts";
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
        match(e.message, /folded into the baselines/);
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

Deno.test({
  name: "migrate on a database at the last release applies only the migrations added since",
  ignore: serverUrl === null,
  async fn() {
    const { released } = await migrationsByRelease();
    const db = await freshDatabase(serverUrl!, "rpgmigrate");
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    const folder = await Deno.makeTempDir({ prefix: "rpgmigrate-" });
    try {
      await migrate(sql, { seed: true, files: released, seedText: await releasedSeed() });
      const [{ spells }] =
        await sql`select count(*)::int as spells from public.spell` as unknown as [
          { spells: number },
        ];
      // Only this file is new; running a released one again would fail on its existing tables.
      const path = new URL(`file://${folder}/29991231000000_later.sql`);
      await Deno.writeTextFile(path, "create table public.later_marker (id int);");
      const later = { version: "29991231000000", name: "later", path };
      deepEqual(await migrate(sql, { seed: true, files: [...released, later] }), [
        "29991231000000_later",
      ]);
      const [{ after }] = await sql`select count(*)::int as after from public.spell` as unknown as [
        { after: number },
      ];
      equal(after, spells, "the seed did not run again");
      deepEqual(await migrate(sql, { seed: true, files: [...released, later] }), [], "idempotent");
    } finally {
      await sql.end();
      await db.drop();
      await Deno.remove(folder, { recursive: true });
    }
  },
});
