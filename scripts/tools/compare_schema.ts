// Proves that an upgrade builds what a fresh install builds, on a populated database: a migration
// that behaves differently when tables hold rows (a conditional step, a data-dependent statement,
// one that fails or skips on existing rows) shows here. Two fresh databases, on the current
// scripts/server/local_bootstrap.sql (which reproduces the hosted platform's default grants):
//   fresh:    every migration in supabase/migrations/, then the seed, as a new project gets them;
//   upgraded: the migrations and seed of the last release (supabase/releases.json), then
//             scripts/support/fill_every_table.sql, then the migrations added since, as a project
//             deployed at that release gets them.
// Each catalog is dumped (functions, policies, privileges, indexes, triggers, constraints, columns,
// types, extensions) and no difference is allowed; the upgraded database must also have kept every
// row it held (scripts/support/upgrade.ts, as tests/upgrade_test.ts checks). Exits 1 on any
// difference (`-` only in the fresh install, `+` only in the upgraded database) or lost row.
// Columns are compared by name, not by position.
//
//   deno task schema:compare [--embedded] [--database-url <url>]
//
// Real Postgres by default (DATABASE_URL, else 127.0.0.1:5432); `--embedded` uses in-memory PGlite
// databases instead.
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import postgres from "postgres";
import type { MigrationFile } from "../server/migrate.ts";
import { freshDatabase } from "../support/fresh_database.ts";
import { fileName, migrationsByRelease, releasedSeed } from "../support/releases.ts";
import {
  documentedRowChanges,
  emptyTables,
  FILL_EVERY_TABLE,
  lostRows,
  snapshotRows,
} from "../support/upgrade.ts";

const root = new URL("../../", import.meta.url);

/** One database to build and dump: run statements, read rows. */
interface Target {
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function postgresTarget(serverUrl: string, label: string): Promise<Target> {
  const database = await freshDatabase(serverUrl, `rpgcompare_${label}`);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  return {
    exec: async (text) => void await sql.unsafe(text),
    rows: async (text) => [...await sql.unsafe(text)],
    close: () => sql.end().then(() => database.drop()),
  };
}

async function embeddedTarget(): Promise<Target> {
  const db = await PGlite.create({ extensions: { pg_trgm } });
  return {
    exec: async (text) => void await db.exec(text),
    rows: async (text) => (await db.query<Record<string, unknown>>(text)).rows,
    close: () => db.close(),
  };
}

/** Runs migration files in order, naming the one that fails. */
async function apply(target: Target, files: MigrationFile[]): Promise<void> {
  for (const file of files) {
    try {
      await target.exec(await Deno.readTextFile(file.path));
    } catch (e) {
      throw new Error(`${fileName(file)} failed: ${String(e)}`, { cause: e });
    }
  }
}

const SCHEMAS = "('public', 'private', 'auth', 'extensions')";

/** Catalog queries by section (`catalog.sql`), each returning one text line per object (`line`). */
const CATALOG: Record<string, string> = (() => {
  const text = Deno.readTextFileSync(new URL("catalog.sql", import.meta.url));
  const [, ...parts] = text.replaceAll("{schemas}", SCHEMAS).split(/^-- section: (.+)$/m);
  return Object.fromEntries(parts.flatMap((part, i) => i % 2 === 0 ? [[part, parts[i + 1]!]] : []));
})();

async function dump(target: Target): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  for (const [section, query] of Object.entries(CATALOG)) {
    const rows = await target.rows(query);
    result.set(section, rows.map((r) => String(r.line)).sort());
  }
  return result;
}

/** Prints the differences; returns how many are not allowed. */
function report(base: Map<string, string[]>, head: Map<string, string[]>): number {
  let unexpected = 0;
  for (const section of Object.keys(CATALOG)) {
    const before = new Set(base.get(section));
    const after = new Set(head.get(section));
    const lines = [
      ...[...before].filter((l) => !after.has(l)).map((l) => ["-", l] as const),
      ...[...after].filter((l) => !before.has(l)).map((l) => ["+", l] as const),
    ];
    if (lines.length === 0) continue;
    console.log(`\n## ${section}`);
    for (const [sign, line] of lines) console.log(`${sign} ${line}`);
    unexpected += lines.length;
  }
  return unexpected;
}

if (import.meta.main) {
  const { values: args } = parseArgs({
    args: Deno.args,
    options: {
      "database-url": { type: "string" },
      embedded: { type: "boolean", default: false },
    },
  });
  const serverUrl = args["database-url"] ?? Deno.env.get("DATABASE_URL") ??
    "postgres://postgres@127.0.0.1:5432/postgres";
  const open = (label: string) =>
    args.embedded ? embeddedTarget() : postgresTarget(serverUrl, label);
  const bootstrap = await Deno.readTextFile(new URL("scripts/server/local_bootstrap.sql", root));
  const { release, released, later } = await migrationsByRelease();
  // A database on the bootstrap, built by `steps`; its catalog and what `steps` found.
  const build = async (label: string, steps: (db: Target) => Promise<string[]>) => {
    const db = await open(label);
    try {
      await db.exec(bootstrap);
      return { problems: await steps(db), catalog: await dump(db) };
    } finally {
      await db.close();
    }
  };
  const fresh = await build("fresh", async (db) => {
    await apply(db, [...released, ...later]);
    await db.exec(await Deno.readTextFile(new URL("supabase/seed.sql", root)));
    return [];
  });
  const upgraded = await build("upgraded", async (db) => {
    await apply(db, released);
    await db.exec(await releasedSeed());
    await db.exec(await Deno.readTextFile(FILL_EVERY_TABLE));
    const problems = (await emptyTables(db.rows)).map((table) =>
      `${table}: no row at release ${release} ` +
      "(give it rows in scripts/support/fill_every_table.sql)"
    );
    const before = await snapshotRows(db.rows);
    await apply(db, later);
    const documented = await documentedRowChanges(later);
    return [...problems, ...lostRows(before, await snapshotRows(db.rows), documented)];
  });
  const { problems } = upgraded;

  console.log(
    `Fresh install of ${released.length + later.length} migrations against release ${release} ` +
      `(${released.length} migrations) filled and upgraded by ${later.length}, on ` +
      (args.embedded ? "embedded PGlite" : "Postgres"),
  );
  const differences = report(fresh.catalog, upgraded.catalog);
  for (const problem of problems) console.log(`lost: ${problem}`);
  const total = [...fresh.catalog.values()].reduce((n, lines) => n + lines.length, 0);
  if (differences + problems.length > 0) {
    console.log(`\n${differences} catalog difference(s), ${problems.length} lost row problem(s)`);
    Deno.exitCode = 1;
  } else {
    console.log(`\nSame schema: ${total} catalog lines compared, every row kept`);
  }
}
