/**
 * One source of truth for configuration: the schema in `_shared/env.ts` (and the local server's
 * own list) names every variable; the README's table and `.env.example` must name exactly those.
 */
import { deepStrictEqual, equal, match } from "node:assert/strict";
import { plumbing } from "../scripts/hosted/emulation.ts";
import { runtimeDeno } from "../scripts/support/deno_runtime.ts";
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

test("a function on the platform's Deno that cannot start with its configuration says why in one line", async () => {
  // As the runtime loads a function: its index.ts is the main module.
  const { code, stderr } = await new Deno.Command(await runtimeDeno(), {
    args: [
      "run",
      "--no-config",
      "--import-map=supabase/functions/import_map.json",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "supabase/functions/find-spell/index.ts",
    ],
    cwd: new URL("../", import.meta.url).pathname,
    clearEnv: true,
    env: {
      SUPABASE_URL: "https://project-ref.supabase.co",
      SUPABASE_DB_URL: "postgres://postgres:unused@127.0.0.1:5432/postgres",
      SUPABASE_JWKS: '{"keys":[',
      NO_COLOR: "1",
      ...plumbing(),
    },
  }).output();
  const printed = new TextDecoder().decode(stderr).trim();
  equal(code, 1);
  match(
    printed,
    /^ConfigurationError: Invalid environment: SUPABASE_JWKS is not valid JSON$/,
  );
});
