// Proves that every function deploys unchanged the way the hosted platform bundles it
// (`supabase functions deploy`, README "Deploy"). For each function the Supabase CLI takes the
// import map that supabase/config.toml names for it (supabase/functions/import_map.json), then
// uploads the entrypoint and every file reachable from it through import statements whose target
// has a file extension and is relative or mapped to a relative path; nothing else, and never the
// project's root deno.json. This script repeats that walk, copies exactly those files into an
// empty folder, and there asks Deno for the function's module graph with that import map only
// (`deno info --no-config --import-map`): a file the walk would not upload, an import only the root
// deno.json can resolve, or a path outside the project fails the check. Finally every function is
// type-checked the same way. Exits 1 on any failure.
//
// It also reports what each function loads when its instance starts (`--sizes`: every function).
//
//   deno task deploy:check [--sizes]
import { dirname, join, normalize, relative, sep as SEPARATOR } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { pinnedDeno, runtimeDeno, runtimeDenoEnv } from "../support/deno_runtime.ts";

const root = fromFileUrl(new URL("../../", import.meta.url));
const functionsDir = join(root, "supabase", "functions");
/** The import map every function deploys with, as config.toml names it (relative to supabase/). */
export const IMPORT_MAP = "./functions/import_map.json";
/** The import map's path relative to the project root. */
const importMapFile = join("supabase", IMPORT_MAP);
/** Node modules the hosted edge runtime refuses to user functions (its Limits page). */
const UNAVAILABLE_ON_PLATFORM = new Set(["node:vm", "node:worker_threads", "node:child_process"]);
/** The platform's limit on a bundled function (its Limits page). */
const MAX_BUNDLE_BYTES = 20 * 1024 * 1024;

/** One module of `deno info --json`. */
interface ModuleInfo {
  specifier: string;
  size?: number;
  error?: string;
  dependencies?: {
    code?: { specifier?: string; error?: string };
    type?: { error?: string };
    isDynamic?: boolean;
  }[];
}

interface ModuleGraph {
  roots: string[];
  modules: ModuleInfo[];
  npmPackages?: Record<string, unknown>;
}

/** What one function's bundle holds, and what its instance evaluates when it starts. */
interface Measured {
  bundle: { files: number; bytes: number };
  start: { modules: number; bytes: number; packages: string[] };
}

/** The function folders: every folder of supabase/functions/ with an index.ts, except _shared. */
async function functionNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const { name, isDirectory } of Deno.readDir(functionsDir)) {
    const entrypoint = Deno.stat(join(functionsDir, name, "index.ts")).then(
      () => true,
      () => false,
    );
    if (isDirectory && !name.startsWith("_") && await entrypoint) names.push(name);
  }
  return names.sort();
}

/** The import map's entries, with relative targets made relative to the project root. */
async function loadImportMap(): Promise<Map<string, string>> {
  const { imports = {} } = JSON.parse(await Deno.readTextFile(join(root, importMapFile))) as {
    imports?: Record<string, string>;
  };
  return new Map(
    Object.entries(imports).map(([key, target]) => [
      key,
      target.startsWith("./") || target.startsWith("../")
        ? relative(root, join(root, dirname(importMapFile), target)) +
          (target.endsWith("/") ? "/" : "")
        : target,
    ]),
  );
}

// Static imports and re-exports (`import x from "m"`, `import type {…} from "m"`, `import "m"`,
// `export … from "m"`) and dynamic imports of a string literal.
const IMPORT = /\b(?:import|export)\s+(?:\{[^{}]*\}|[^'"\n;]*?)\s*(?:from\s*)?["']([^"'\n]+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"'\n]+)["']\s*\)/g;

/**
 * The files a deploy uploads for one function, relative to the project root: the entrypoint and
 * what its imports reach, following a specifier only when (after the import map) it has a file
 * extension and is a relative path. Problems (a file outside the project, a missing file) are
 * added to `problems`.
 */
async function uploadedFiles(
  entrypoint: string,
  map: Map<string, string>,
  problems: string[],
): Promise<Set<string>> {
  const seen = new Set<string>();
  for (const queue = [entrypoint]; queue.length > 0;) {
    const current = queue.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    const text = await Deno.readTextFile(join(root, current)).catch(() => null);
    if (text === null) {
      problems.push(`${current}: imported but missing`);
      continue;
    }
    for (const match of [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC_IMPORT)]) {
      let specifier = match[1]!.trim();
      let mapped = false;
      for (const [key, target] of map) {
        if (specifier.startsWith(key)) {
          specifier = target + specifier.slice(key.length);
          mapped = true;
        }
      }
      const isRelative = specifier.startsWith("./") || specifier.startsWith("../");
      if (!/\.[a-z]+$/i.test(specifier) || (!isRelative && !mapped)) continue;
      if (/^[a-z]+:/i.test(specifier)) continue;
      const file = normalize(mapped ? specifier : join(dirname(current), specifier));
      if (file.startsWith(`..${SEPARATOR}`) || file === "..") {
        problems.push(`${current}: imports ${match[1]}, which is outside the project`);
      } else {
        queue.push(file);
      }
    }
  }
  return seen;
}

/** Runs the hosted runtime's Deno (deno-versions.env), which is what bundles and runs functions. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(await runtimeDeno(), {
    args,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...runtimeDenoEnv() },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/**
 * The project modules an instance evaluates before it serves (its static code imports, not
 * type-only or dynamic ones), and the npm packages among them.
 */
function loadedAtStart(graph: ModuleGraph): Measured["start"] {
  const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const pending = [...graph.roots];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    for (const dependency of bySpecifier.get(next)?.dependencies ?? []) {
      if (dependency.code?.specifier && !dependency.isDynamic) {
        pending.push(dependency.code.specifier);
      }
    }
  }
  const project = [...seen].filter((s) => s.startsWith("file:"));
  return {
    modules: project.length,
    bytes: project.reduce((sum, s) => sum + (bySpecifier.get(s)?.size ?? 0), 0),
    packages: [...seen].filter((s) => s.startsWith("npm:")).map((s) => s.slice(4)).sort(),
  };
}

/**
 * What a function's bundle holds at most: the bytes of its own modules plus the whole of each npm
 * package it reaches, as installed (the bundler keeps only what is imported, so this is an upper
 * bound).
 */
async function bundleSize(graph: ModuleGraph): Promise<Measured["bundle"]> {
  const sized = graph.modules.filter((m) => typeof m.size === "number");
  const total = { files: sized.length, bytes: sized.reduce((sum, m) => sum + m.size!, 0) };
  const cache = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno");
  const count = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await count(path);
      else if (entry.isFile) {
        total.files++;
        total.bytes += (await Deno.stat(path)).size;
      }
    }
  };
  for (const id of Object.keys(graph.npmPackages ?? {})) {
    const plain = id.split("_")[0]!;
    const at = plain.lastIndexOf("@");
    const dir = join(cache, "npm", "registry.npmjs.org", plain.slice(0, at), plain.slice(at + 1));
    // A package not installed there counts as nothing.
    await count(dir).catch(() => {});
  }
  return total;
}

/** Copies what a deploy of the function uploads into `folder`; returns its entrypoint there. */
async function stage(
  name: string,
  map: Map<string, string>,
  folder: string,
  problems: string[],
): Promise<string> {
  const entrypoint = join("supabase", "functions", name, "index.ts");
  for (const file of [...await uploadedFiles(entrypoint, map, problems), importMapFile]) {
    await Deno.mkdir(join(folder, dirname(file)), { recursive: true });
    await Deno.copyFile(join(root, file), join(folder, file)).catch(() => {});
  }
  return join(folder, entrypoint);
}

/** Checks one function in a folder holding only what its deploy uploads; returns the problems. */
async function checkFunction(
  name: string,
  map: Map<string, string>,
  folder: string,
): Promise<{ problems: string[]; measured?: Measured }> {
  const problems: string[] = [];
  const entrypoint = await stage(name, map, folder, problems);
  const info = await run([
    "info",
    "--json",
    "--no-config",
    "--import-map",
    join(folder, importMapFile),
    entrypoint,
  ]);
  if (info.code !== 0) {
    return { problems: [...problems, `deno info failed: ${info.stderr.trim()}`] };
  }
  const graph = JSON.parse(info.stdout) as ModuleGraph;
  const measured = { bundle: await bundleSize(graph), start: loadedAtStart(graph) };
  if (measured.bundle.bytes > MAX_BUNDLE_BYTES) {
    const mb = (measured.bundle.bytes / 1048576).toFixed(1);
    problems.push(`${mb} MB to bundle, over the platform's 20 MB`);
  }
  for (const module of graph.modules) {
    const errors = [
      module.error,
      ...(module.dependencies ?? []).flatMap((d) => [d.code?.error, d.type?.error]),
    ];
    problems.push(...errors.filter((e) => e !== undefined).map((e) => e.replaceAll(folder, "")));
    if (module.error) continue;
    if (UNAVAILABLE_ON_PLATFORM.has(module.specifier)) {
      problems.push(`${module.specifier}: the hosted runtime does not offer it`);
    }
    if (
      module.specifier.startsWith("file:") &&
      !fromFileUrl(module.specifier).startsWith(folder + SEPARATOR)
    ) {
      problems.push(`${module.specifier}: resolved outside the uploaded files`);
    }
  }
  return { problems, measured };
}

/** Checks what every function's deploy shares: the lock file, the map's versions, config.toml. */
async function projectProblems(names: string[], map: Map<string, string>): Promise<string[]> {
  const read = async (path: string) => await Deno.readTextFile(join(root, path));
  const problems: string[] = [];
  // Entries of the functions' import map must name the same packages as the root deno.json.
  const rootMap = (JSON.parse(await read("deno.json")) as { imports: Record<string, string> })
    .imports;
  for (const [key, target] of map) {
    if (!key.endsWith("/") && rootMap[key] !== target) {
      problems.push(`import map: ${key} is ${target} here but ${rootMap[key]} in deno.json`);
    }
  }
  // Every function's config.toml section must name the import map.
  const sections = new Map(
    [...(await read("supabase/config.toml")).matchAll(
      /^\[functions\.([a-z0-9-]+)\]\n((?:[^[\n].*\n?)*)/gm,
    )].map((m) => [m[1]!, m[2]!]),
  );
  for (const name of names) {
    if (!sections.get(name)?.split("\n").includes(`import_map = "${IMPORT_MAP}"`)) {
      problems.push(`supabase/config.toml: [functions.${name}] does not set import_map`);
    }
  }
  // The hosted runtime's Deno reads lock files up to version 4; newer Deno writes version 5 when it
  // rewrites the file (after a dependency change), which would break every deploy.
  const { version } = JSON.parse(await read("deno.lock")) as { version: string };
  if (version !== "4") {
    problems.push(
      `deno.lock is version ${version}; the platform's Deno reads version 4: rewrite it with ` +
        "deno task lock",
    );
  }
  return problems;
}

if (import.meta.main) {
  const names = await functionNames();
  const map = await loadImportMap();
  const problems: string[] = [];
  const measured = new Map<string, Measured>();
  const folder = await Deno.makeTempDir({ prefix: "deploy-check-" });
  try {
    // Each function alone in a folder of its own; then all of them together in `_all`, to
    // type-check every function with the map alone (each one's own files were proven complete).
    const all = join(folder, "_all");
    const entrypoints: string[] = [];
    for (const name of names) {
      const found = await checkFunction(name, map, join(folder, name));
      problems.push(...found.problems.map((p) => `${name}: ${p}`));
      if (found.measured) measured.set(name, found.measured);
      entrypoints.push(await stage(name, map, all, []));
    }
    const check = await run([
      "check",
      "--quiet",
      "--no-config",
      "--import-map",
      join(all, importMapFile),
      ...entrypoints,
    ]);
    if (check.code !== 0) problems.push(`deno check failed:\n${check.stderr.trim()}`);
    problems.push(...await projectProblems(names, map));
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
  if (problems.length > 0) {
    console.error(`${problems.join("\n")}\n\n${problems.length} problem(s)`);
    Deno.exit(1);
  }
  const by = (key: "bundle" | "start") =>
    [...measured].sort((a, b) => a[1][key].bytes - b[1][key].bytes);
  const ends = <T>(list: T[]) => [list[0]!, list.at(-1)!];
  for (const [name, { bundle }] of ends(by("bundle"))) {
    console.log(`${name}: ${bundle.files} files, ${(bundle.bytes / 1048576).toFixed(2)} MB`);
  }
  console.log("evaluated when an instance starts (project modules, their bytes; npm packages):");
  for (const [name, { start }] of Deno.args.includes("--sizes") ? by("start") : ends(by("start"))) {
    console.log(
      `  ${name}: ${start.modules} modules, ${(start.bytes / 1024).toFixed(0)} KB; ` +
        start.packages.join(", "),
    );
  }
  const runtime = await pinnedDeno("DENO_RUNTIME");
  console.log(
    `${measured.size} functions resolve and type-check on Deno ${runtime} with ${IMPORT_MAP} ` +
      "and their uploaded files only",
  );
}
