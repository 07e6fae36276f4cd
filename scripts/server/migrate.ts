import type postgres from "postgres";
import { sha256Hex } from "../../supabase/functions/_shared/sha256.ts";

const root = new URL("../../", import.meta.url);
const migrationsDir = new URL("supabase/migrations/", root);
const MIGRATION_NAME = /^(\d{14})_([a-z0-9_]+)\.sql$/;

/** One migration file: its 14-digit version, name and path. */
export interface MigrationFile {
  version: string;
  name: string;
  path: URL;
}

/** The migration files in the order they apply. */
export async function listMigrations(): Promise<MigrationFile[]> {
  const files: MigrationFile[] = [];
  for await (const entry of Deno.readDir(migrationsDir)) {
    if (!entry.isFile || !entry.name.endsWith(".sql")) continue;
    const match = MIGRATION_NAME.exec(entry.name);
    if (!match?.[1] || !match[2]) {
      throw new Error(`Migration file name is not <14-digit timestamp>_<name>.sql: ${entry.name}`);
    }
    files.push({ version: match[1], name: match[2], path: new URL(entry.name, migrationsDir) });
  }
  return files.sort((a, b) => a.version.localeCompare(b.version));
}

/**
 * Refuses a database that recorded migrations this project does not have: one built before release
 * 1.0.0, when the schema lived in baselines edited in place (files recorded then were folded into
 * them), or one migrated by a newer version of the project. Neither can be brought up to date here.
 */
function refuseUnknownMigrations(done: Set<string>, files: MigrationFile[]): void {
  const known = new Set(files.map((f) => f.version));
  const unknown = [...done].filter((v) => !known.has(v)).sort();
  if (unknown.length === 0) return;
  throw new Error(
    `This database was built by migrations that this project does not have (${
      unknown.join(", ")
    }): ` +
      "either by a version before 1.0.0, whose later files were folded into the baselines in " +
      "supabase/migrations/ and cannot be upgraded in place, or by a newer version of the " +
      "project. A database from before 1.0.0 holds nothing to keep, so start from an empty one: " +
      "delete the embedded data folder (DATA_DIR, .data/ by default) or point DATABASE_URL at a " +
      "new database, then start again.",
  );
}

/**
 * Brings a database up to date: the local bootstrap where Supabase's own objects are missing,
 * then each migration whose version is not yet recorded (in the table the Supabase CLI uses, as
 * `supabase db push` does), then the seed once. `files` and `seedText` replace the migrations of
 * supabase/migrations/ and the text of supabase/seed.sql, to build a database as a release had it.
 * Returns what it applied.
 */
export async function migrate(
  sql: postgres.Sql,
  options: { seed: boolean; files?: MigrationFile[]; seedText?: string },
): Promise<string[]> {
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(72210401)`;
    const [{ has_auth }] = await tx<{ has_auth: boolean }[]>`
      select to_regclass('auth.users') is not null as has_auth` as unknown as [
      { has_auth: boolean },
    ];
    if (!has_auth) {
      await tx.unsafe(await Deno.readTextFile(new URL("scripts/server/local_bootstrap.sql", root)));
    }
    await tx.unsafe(`
      create schema if not exists supabase_migrations;
      create table if not exists supabase_migrations.schema_migrations (
        version text primary key, statements text[], name text);
      create table if not exists supabase_migrations.seed_files (
        path text primary key, hash text not null);`);
    const done = new Set(
      (await tx<{ version: string }[]>`select version from supabase_migrations.schema_migrations`)
        .map((r) => r.version),
    );
    const files = options.files ?? await listMigrations();
    refuseUnknownMigrations(done, files);
    for (const file of files) {
      if (done.has(file.version)) continue;
      const text = await Deno.readTextFile(file.path);
      try {
        await tx.unsafe(text);
      } catch (e) {
        throw new Error(`Migration ${file.version}_${file.name} failed: ${String(e)}`, {
          cause: e,
        });
      }
      await tx`insert into supabase_migrations.schema_migrations (version, name, statements)
               values (${file.version}, ${file.name}, ${[text]})`;
      applied.push(`${file.version}_${file.name}`);
    }
    if (options.seed) {
      const seedPath = new URL("supabase/seed.sql", root);
      const seeded = await tx`select 1 from supabase_migrations.seed_files where path = 'seed.sql'`;
      const text = options.seedText ?? await Deno.readTextFile(seedPath).catch(() => "");
      if (seeded.length === 0 && text.trim() !== "") {
        await tx.unsafe(text);
        await tx`insert into supabase_migrations.seed_files (path, hash)
                 values ('seed.sql', ${sha256Hex(text)})`;
        applied.push("seed.sql");
      }
    }
  });
  return applied;
}
