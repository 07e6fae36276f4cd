// Released migrations are append-only: supabase/releases.json records each release's files
// with the SHA-256 of their bytes, and a database deployed at a release gets only the files
// added after it (`supabase db push` and the local runner skip versions they recorded, and
// db push refuses a file that sorts before the last one applied). So a released file is never
// edited or removed, and a new one sorts after every released one. The release recorded last is the
// project's version (deno.json), and CHANGELOG.md has a section for each release.
import { deepEqual, equal, ok } from "node:assert/strict";
import { listMigrations } from "../scripts/server/migrate.ts";
import { fileHash, fileName, projectVersion, readReleases } from "../scripts/support/releases.ts";

Deno.test("released migration files are unchanged and still there", async () => {
  const files = new Map((await listMigrations()).map((f) => [fileName(f), f]));
  const problems: string[] = [];
  for (const [release, { migrations }] of Object.entries(await readReleases())) {
    for (const [name, hash] of Object.entries(migrations)) {
      const file = files.get(name);
      if (!file) problems.push(`${name} (released in ${release}) was removed or renamed`);
      else if (await fileHash(file.path) !== hash) {
        problems.push(`${name} (released in ${release}) was edited`);
      }
    }
  }
  deepEqual(
    problems,
    [],
    `${problems.join("; ")}: write a schema change as a new migration file instead`,
  );
});

Deno.test("a migration added since the last release sorts after every released one", async () => {
  const released = Object.values(await readReleases()).flatMap((r) => Object.keys(r.migrations));
  const lastReleased = released.sort().at(-1) ?? "";
  const early = (await listMigrations()).map(fileName)
    .filter((name) => !released.includes(name) && name <= lastReleased);
  deepEqual(
    early,
    [],
    `${early.join(", ")}: new migrations need a timestamp after ${lastReleased}`,
  );
});

Deno.test("the last recorded release is the project's version, with a CHANGELOG.md section", async () => {
  const releases = Object.keys(await readReleases());
  const version = await projectVersion();
  equal(
    releases.at(-1),
    version,
    `deno.json says ${version}: record its migrations with deno task migrations:release`,
  );
  const changelog = await Deno.readTextFile(new URL("../CHANGELOG.md", import.meta.url));
  const sections = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]);
  ok(sections[0] === "Unreleased", "CHANGELOG.md starts with its Unreleased section");
  deepEqual(sections.slice(1), releases.toReversed(), "one CHANGELOG.md section per release");
});
