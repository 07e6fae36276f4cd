import { sha256Hex } from "../../supabase/functions/_shared/sha256.ts";
import { listMigrations, type MigrationFile } from "../server/migrate.ts";

const root = new URL("../../", import.meta.url);

/** Where the released migrations are listed: release version → file name → SHA-256 of its bytes. */
export const RELEASES_PATH = new URL("supabase/released_migrations.json", root);

/** The released migrations: each release's version with the files it shipped and their hashes. */
export type Releases = Record<string, Record<string, string>>;

/** The project's version, stated once: `version` in deno.json. */
export async function projectVersion(): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  if (typeof config.version !== "string") throw new Error("deno.json has no version");
  return config.version;
}

/** The released migrations, in release order. */
export async function readReleases(): Promise<Releases> {
  return JSON.parse(await Deno.readTextFile(RELEASES_PATH)) as Releases;
}

/** SHA-256 of a migration file's bytes. */
export async function migrationHash(file: MigrationFile): Promise<string> {
  return sha256Hex(await Deno.readFile(file.path));
}

/**
 * The migration files split at the last release: `released` are the files some release shipped,
 * `later` the files added since, each in the order they apply.
 */
export async function migrationsByRelease(): Promise<{
  release: string;
  released: MigrationFile[];
  later: MigrationFile[];
}> {
  const releases = await readReleases();
  const releasedNames = new Set(Object.values(releases).flatMap((files) => Object.keys(files)));
  const files = await listMigrations();
  const release = Object.keys(releases).at(-1);
  if (!release) throw new Error(`${RELEASES_PATH.pathname} lists no release`);
  return {
    release,
    released: files.filter((f) => releasedNames.has(fileName(f))),
    later: files.filter((f) => !releasedNames.has(fileName(f))),
  };
}

/** A migration's file name, as the manifest keys it. */
export function fileName(file: MigrationFile): string {
  return `${file.version}_${file.name}.sql`;
}
