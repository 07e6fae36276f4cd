// Records a release in supabase/releases.json under the project's version (deno.json): every file
// in supabase/migrations/ that no release lists yet, and supabase/seed.sql, each with the SHA-256 of
// its bytes. Run it once when a release is cut, after bumping the version and naming its section in
// CHANGELOG.md; from then on tests/released_migrations_test.ts holds those files as they are, and
// the upgrade test starts from this release.
//
//   deno task migrations:release
import { listMigrations } from "../server/migrate.ts";
import {
  fileHash,
  fileName,
  projectVersion,
  type Releases,
  RELEASES_PATH,
  seedHash,
} from "../support/releases.ts";

if (import.meta.main) {
  const version = await projectVersion();
  const releases: Releases = await Deno.readTextFile(RELEASES_PATH)
    .then((text) => JSON.parse(text) as Releases, () => ({}));
  if (releases[version]) {
    console.error(`Release ${version} is recorded already: bump version in deno.json first`);
    Deno.exit(1);
  }
  const released = new Set(Object.values(releases).flatMap((r) => Object.keys(r.migrations)));
  const added = (await listMigrations()).filter((file) => !released.has(fileName(file)));
  if (added.length === 0) {
    console.error("No migration was added since the last release: nothing to record");
    Deno.exit(1);
  }
  const migrations: Record<string, string> = {};
  for (const file of added) migrations[fileName(file)] = await fileHash(file.path);
  releases[version] = { migrations, seed: await seedHash() };
  await Deno.writeTextFile(RELEASES_PATH, JSON.stringify(releases, null, 2) + "\n");
  console.log(`Recorded ${added.length} migration(s) as released in ${version}`);
}
