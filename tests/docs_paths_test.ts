// Every file the README and docs/ name in backticks exists: a doc that names a file which was
// renamed or deleted sends a newcomer looking for nothing. A name is read as the docs write it:
// from the repository root (`tests/x_test.ts`), from supabase/functions/ when it starts with
// `_shared/`, and otherwise (`held_open.ts`, `auth/jwt.ts`) as the end of some file's path.
import { equal } from "node:assert/strict";

const root = new URL("../", import.meta.url);
/** Folders that are generated, installed or ignored: nothing in them is the project's text. */
const SKIPPED = new Set([".git", "node_modules", ".data", "dist", "test-artifacts"]);
/** What a named path may end with to be read as a file of this repository. */
const FILE = /\.(ts|md|sql|json|lua|toml|sh|env|html|css|js)$/;
/** Names the docs give of files that are not the repository's, never looked for here. */
const OUTSIDE = new Set([
  // Of other repositories: the reference frontend, the platform's database image, supabase-js.
  "frontend/",
  "frontend/src",
  "migrations/db/migrations/",
  "migrations/db/init-scripts/",
  "20250605172253_grant_with_admin_to_postgres_16_and_above.sql",
  "10000000000000_demote-postgres.sql",
  "dist/",
  "dist/umd/supabase.js",
  // supabase/cli's local API proxy (docs/deploy.md, "The client address").
  "packages/stack/src/ApiProxy.ts",
  // Written by a run or a deploy, or by the user: data, screenshots, configuration, served files.
  ".data/",
  "test-artifacts/screenshots/",
  ".env",
  "app-config.json",
  "assets/vendor/supabase.js",
  "web/a/b/index.html",
  // The worked example of adding a content type (docs/architecture.md).
  "supabase/functions/find-scroll/",
  "create-scroll/",
]);

/** Every file and folder of the repository, relative to its root; folders end with `/`. */
async function repositoryPaths(): Promise<string[]> {
  const paths: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(new URL(dir || ".", root))) {
      if (SKIPPED.has(entry.name)) continue;
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) {
        paths.push(`${path}/`);
        await walk(`${path}/`);
      } else paths.push(path);
    }
  };
  await walk("");
  return paths;
}

/** The backticked names in a Markdown text that read as paths: no spaces, URLs or placeholders. */
function namedPaths(markdown: string): string[] {
  const names = [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return names.filter((name) =>
    /^[\w.-]+(\/[\w.-]+)*\/?$/.test(name) && !name.startsWith("/") &&
    (FILE.test(name) || (name.endsWith("/") && name.length > 1)) && !OUTSIDE.has(name)
  );
}

Deno.test("every file path the README and docs/ name exists in the repository", async () => {
  const paths = await repositoryPaths();
  const existing = new Set(paths);
  const topLevel = new Set(paths.filter((p) => !p.slice(0, -1).includes("/")));
  const exists = (name: string) => {
    const first = name.includes("/") ? `${name.split("/")[0]}/` : name;
    if (topLevel.has(first)) return existing.has(name);
    if (name.startsWith("_shared/")) return existing.has(`supabase/functions/${name}`);
    return paths.some((p) => p.endsWith(`/${name}`));
  };
  const docs = ["README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", root))) {
    if (entry.name.endsWith(".md")) docs.push(`docs/${entry.name}`);
  }
  const missing: string[] = [];
  for (const doc of docs.sort()) {
    const text = await Deno.readTextFile(new URL(doc, root));
    for (const name of new Set(namedPaths(text))) {
      if (!exists(name)) missing.push(`${doc}: ${name}`);
    }
  }
  equal(missing.join("\n"), "", `named in backticks but missing:\n${missing.join("\n")}`);
});
