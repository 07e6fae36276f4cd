/**
 * `deno task start` installs only what serving needs (docs/local-server.md, "What start installs"):
 * the tasks must keep `deno task` from installing every locked package, and the server's module
 * graph must not reach a package that only tests, tools or the pages need.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import config from "../deno.json" with { type: "json" };
import { test } from "./_harness.ts";

const root = new URL("../", import.meta.url);

/**
 * Packages that serving functions never loads: tests, tools, and the pages' browser builds (ajv
 * is served: the MCP SDK's server imports it).
 */
const NOT_FOR_SERVING = [
  "playwright-core",
  "fast-check",
  "@readme/openapi-parser",
  "@types/node",
  // Read as files when a page first asks for them (scripts/server/routes/web.ts).
  "swagger-ui-dist",
  "@supabase/supabase-js",
];

test("start: deno task installs nothing by itself, and start installs as it imports", () => {
  // With "auto" or "none", `deno task` installs every package of the lock before any task runs.
  equal(config.nodeModulesDir, "manual");
  const start = config.tasks.start.split(/\s+/);
  ok(start.includes("--node-modules-dir=auto"), config.tasks.start);
  ok(start.includes("--unstable-npm-lazy-caching"), config.tasks.start);
  for (const [name, command] of Object.entries(config.tasks)) {
    if (/^deno (run|test)\b/.test(command) && name !== "lock") {
      ok(command.includes("--node-modules-dir=auto"), `task ${name} installs what it needs`);
    }
  }
});

test("start: the server and every function reach no package that serving does not need", async () => {
  const entry = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    const roots = [new URL("scripts/server/start.ts", root).href];
    for await (const dir of Deno.readDir(new URL("supabase/functions/", root))) {
      if (dir.isDirectory && !dir.name.startsWith("_")) {
        roots.push(new URL(`supabase/functions/${dir.name}/index.ts`, root).href);
      }
    }
    await Deno.writeTextFile(entry, roots.map((r) => `import "${r}";\n`).join(""));
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", new URL("deno.json", root).pathname, entry],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(code, 0, new TextDecoder().decode(stderr));
    const graph = JSON.parse(new TextDecoder().decode(stdout)) as {
      modules: { specifier: string }[];
      npmPackages?: Record<string, unknown>;
    };
    const reached = new Set<string>();
    // A node_modules folder names packages by path; Deno's global cache by npm package id.
    for (const { specifier } of graph.modules) {
      const name = /node_modules\/\.deno\/([^/]+)@[^/@]+\//.exec(specifier)?.[1];
      if (name) reached.add(name.replace("+", "/"));
    }
    for (const id of Object.keys(graph.npmPackages ?? {})) {
      reached.add(id.slice(0, id.indexOf("@", 1)));
    }
    ok(reached.has("postgres"), `the graph names its packages: ${[...reached].join(", ")}`);
    deepEqual(NOT_FOR_SERVING.filter((pkg) => reached.has(pkg)), []);
  } finally {
    await Deno.remove(entry);
  }
});
