/**
 * One source of truth for configuration: the schema in `_shared/env.ts` (and the local server's
 * own list) names every variable; the README's table and `.env.example` must name exactly those.
 */
import { deepStrictEqual } from "node:assert/strict";
import { CONFIGURATION_VARIABLES } from "../supabase/functions/_shared/env.ts";
import { LOCAL_SERVER_VARIABLES } from "../scripts/server/env_file.ts";
import { test } from "./_harness.ts";

const known = [...new Set([...CONFIGURATION_VARIABLES, ...LOCAL_SERVER_VARIABLES])].sort();

test("the README's configuration table names exactly the variables the schema reads", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const table = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Deploying"));
  const named = table.split("\n")
    .filter((line) => line.startsWith("| `"))
    .flatMap((line) => [...(line.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)])
    .map((m) => m[1]!);
  deepStrictEqual([...new Set(named)].sort(), known);
});

test(".env.example names exactly the variables the schema reads", async () => {
  const text = await Deno.readTextFile(new URL("../.env.example", import.meta.url));
  const named = [...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
  deepStrictEqual([...new Set(named)].sort(), known);
});
