/**
 * The project's releases as supabase/releases.json records them: for each version, in release
 * order, the migration files it shipped and the seed it shipped, each by the SHA-256 of its bytes.
 * A deployed database is at one of these releases; `deno task migrations:release` adds one.
 */
import { sha256Hex } from "../../supabase/functions/_shared/sha256.ts";
import { listMigrations, type MigrationFile } from "../server/migrate.ts";

const root = new URL("../../", import.meta.url);

/** Where the releases are recorded. */
export const RELEASES_PATH = new URL("supabase/releases.json", root);

/** The seed file, as a release records it and as git stores it. */
const SEED_PATH = "supabase/seed.sql";

/** What one release shipped. */
export interface Release {
  /** Migration file name → SHA-256 of its bytes. */
  migrations: Record<string, string>;
  /** SHA-256 of supabase/seed.sql's bytes. */
  seed: string;
}

/** Release version → what it shipped, in release order. */
export type Releases = Record<string, Release>;

/** The project's version, stated once: `version` in deno.json. */
export async function projectVersion(): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  if (typeof config.version !== "string") throw new Error("deno.json has no version");
  return config.version;
}

/** The recorded releases, in release order. */
export async function readReleases(): Promise<Releases> {
  return JSON.parse(await Deno.readTextFile(RELEASES_PATH)) as Releases;
}

/** SHA-256 of a file's bytes. */
export async function fileHash(path: URL): Promise<string> {
  return sha256Hex(await Deno.readFile(path));
}

/** The current seed's SHA-256. */
export async function seedHash(): Promise<string> {
  return await fileHash(new URL(SEED_PATH, root));
}

/** A migration's file name, as a release records it. */
export function fileName(file: MigrationFile): string {
  return `${file.version}_${file.name}.sql`;
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
  const release = Object.keys(releases).at(-1);
  if (!release) throw new Error("supabase/releases.json records no release");
  const releasedNames = new Set(
    Object.values(releases).flatMap((r) => Object.keys(r.migrations)),
  );
  const files = await listMigrations();
  return {
    release,
    released: files.filter((f) => releasedNames.has(fileName(f))),
    later: files.filter((f) => !releasedNames.has(fileName(f))),
  };
}

/**
 * The seed as the last release shipped it: supabase/seed.sql when unchanged since, else the
 * version in git history with the recorded hash. The seed runs only on a new database (a deployed
 * one keeps the rows it got), so a database at the release holds that version's rows.
 */
export async function releasedSeed(): Promise<string> {
  const releases = await readReleases();
  const wanted = Object.values(releases).at(-1)?.seed;
  if (!wanted) throw new Error("supabase/releases.json records no release");
  const current = await Deno.readFile(new URL(SEED_PATH, root));
  if (sha256Hex(current) === wanted) return new TextDecoder().decode(current);
  const commits = (await git(["log", "--format=%H", "--", SEED_PATH])).split("\n").filter(Boolean);
  for (const commit of commits) {
    const text = await git(["show", `${commit}:${SEED_PATH}`]);
    if (sha256Hex(text) === wanted) return text;
  }
  throw new Error(`No version of ${SEED_PATH} in git history has the released hash ${wanted}`);
}

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: root, stdout: "piped", stderr: "piped" })
    .output();
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}
