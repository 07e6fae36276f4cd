// An upgrade loses no data: a database built at the last release (its migrations and seed) and
// filled in every table gets the later migrations the way a deployed database gets them (the files
// whose version it has not recorded, as `deno task start` and `supabase db push` apply them), and
// every row is still there afterwards, except in tables a later migration says it changes
// (scripts/support/upgrade.ts). On the real-Postgres run as the database's superuser owner; on the
// hosted run as the platform's non-superuser `postgres`, over the platform's roles and schemas
// (scripts/hosted/platform.sql), as `db push` runs on a hosted project; on the embedded run in an
// in-memory PGlite, as `deno task start` upgrades its data folder.
import { deepEqual, equal } from "node:assert/strict";
import postgres from "postgres";
import { openEmbedded } from "../scripts/server/database.ts";
import { migrate } from "../scripts/server/migrate.ts";
import { freshDatabase } from "../scripts/support/fresh_database.ts";
import { PostgresCluster } from "../scripts/support/postgres_cluster.ts";
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
const targetsHosted = Deno.env.get("TEST_TARGET") === "hosted";

/** Builds the last release on an empty database as `owner`, fills it, upgrades it and compares. */
async function upgradeKeepsEveryRow(owner: postgres.Sql): Promise<void> {
  const { release, released, later } = await migrationsByRelease();
  const query: RunQuery = async (text) => [...await owner.unsafe(text)];
  await migrate(owner, { seed: true, files: released, seedText: await releasedSeed() });
  await owner.unsafe(await Deno.readTextFile(FILL_EVERY_TABLE));
  const empty = await emptyTables(query);
  equal(
    empty.length,
    0,
    `tables with no row at release ${release}: ${empty.join(", ")} ` +
      "(give them rows in scripts/support/fill_every_table.sql)",
  );
  const before = await snapshotRows(query);

  const applied = await migrate(owner, { seed: true });
  deepEqual(applied, later.map((f) => fileName(f).replace(/\.sql$/, "")), "only the later files");

  const documented = await documentedRowChanges(later);
  for (const [table, why] of documented) console.log(`  ${table} may change: ${why}`);
  const problems = lostRows(before, await snapshotRows(query), documented);
  equal(problems.length, 0, `rows lost by the upgrade from ${release}:\n${problems.join("\n")}`);
}

Deno.test({
  name: "an upgrade from the last release keeps every row of every table",
  ignore: serverUrl === null || targetsHosted,
  async fn() {
    const db = await freshDatabase(serverUrl!, "rpgupgrade");
    const owner = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      await upgradeKeepsEveryRow(owner);
    } finally {
      await owner.end();
      await db.drop();
    }
  },
});

Deno.test({
  name: "an upgrade from the last release as the hosted platform's postgres keeps every row",
  ignore: !targetsHosted || !PostgresCluster.available(),
  async fn() {
    const cluster = await PostgresCluster.create("supabase_admin");
    try {
      const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(
          await Deno.readTextFile(new URL("../scripts/hosted/platform.sql", import.meta.url)),
        );
      } finally {
        await admin.end();
      }
      const owner = postgres(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`, {
        max: 1,
        onnotice: () => {},
      });
      try {
        await upgradeKeepsEveryRow(owner);
      } finally {
        await owner.end();
      }
    } finally {
      await cluster.destroy();
    }
  },
});

Deno.test({
  name: "an upgrade from the last release on the embedded Postgres keeps every row",
  ignore: serverUrl !== null || targetsHosted,
  async fn() {
    const database = await openEmbedded(null);
    const owner = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      await upgradeKeepsEveryRow(owner);
    } finally {
      await owner.end();
      await database.close();
    }
  },
});
