// An upgrade loses no data: a database built at the last release (its migrations and seed) and
// filled in every table gets the later migrations the way a deployed database gets them (the files
// whose version it has not recorded, as `deno task start` and `supabase db push` apply them), and
// every row is still there afterwards, except in tables a later migration says it changes
// (scripts/support/upgrade.ts).
import { deepEqual, equal } from "node:assert/strict";
import postgres from "postgres";
import { migrate } from "../scripts/server/migrate.ts";
import { freshDatabase } from "../scripts/support/fresh_database.ts";
import { fileName, migrationsByRelease, releasedSeed } from "../scripts/support/releases.ts";
import {
  documentedRowChanges,
  emptyTables,
  FILL_EVERY_TABLE,
  lostRows,
  type RunQuery,
  snapshotRows,
} from "../scripts/support/upgrade.ts";
import { realPostgresUrl } from "./support/test_database.ts";

const serverUrl = realPostgresUrl();

Deno.test({
  name: "an upgrade from the last release keeps every row of every table",
  // Needs a server to create a database on; the embedded run has none to spare
  // (`deno task schema:compare --embedded` builds the same upgrade on PGlite).
  ignore: serverUrl === null,
  async fn() {
    const { release, released, later } = await migrationsByRelease();
    const db = await freshDatabase(serverUrl!, "rpgupgrade");
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    const query: RunQuery = async (text) => [...await sql.unsafe(text)];
    try {
      await migrate(sql, { seed: true, files: released, seedText: await releasedSeed() });
      await sql.unsafe(await Deno.readTextFile(FILL_EVERY_TABLE));
      const empty = await emptyTables(query);
      equal(
        empty.length,
        0,
        `tables with no row at release ${release}: ${empty.join(", ")} ` +
          "(give them rows in scripts/support/fill_every_table.sql)",
      );
      const before = await snapshotRows(query);

      const applied = await migrate(sql, { seed: true });
      deepEqual(
        applied,
        later.map(fileName).map((n) => n.replace(/\.sql$/, "")),
        "only the later files",
      );

      const documented = await documentedRowChanges(later);
      for (const [table, why] of documented) console.log(`  ${table} may change: ${why}`);
      const problems = lostRows(before, await snapshotRows(query), documented);
      equal(
        problems.length,
        0,
        `rows lost by the upgrade from ${release}:\n${problems.join("\n")}`,
      );
    } finally {
      await sql.end();
      await db.drop();
    }
  },
});
