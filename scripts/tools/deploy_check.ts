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
const importMapPath = join(root, "supabase", IMPORT_MAP);

/** The function folders: every folder of supabase/functions/ with an index.ts, except _shared. */
async function functionNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(functionsDir)) {
    if (!entry.isDirectory || entry.name.startsWith("_")) continue;
    try {
      await Deno.stat(join(functionsDir, entry.name, "index.ts"));
      names.push(entry.name);
    } catch {
      // Not a function folder.
    }
  }
  return names.sort();
}

/** The import map's entries, with relative targets made relative to the project root. */
async function loadImportMap(): Promise<Map<string, string>> {
  const map = JSON.parse(await Deno.readTextFile(importMapPath)) as {
    imports?: Record<string, string>;
  };
  const entries = new Map<string, string>();
  for (const [key, target] of Object.entries(map.imports ?? {})) {
    const relativeTarget = target.startsWith("./") || target.startsWith("../");
    entries.set(
      key,
      relativeTarget
        ? relative(root, join(dirname(importMapPath), target)) + (target.endsWith("/") ? "/" : "")
        : target,
    );
  }
  return entries;
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
  const queue = [entrypoint];
  while (queue.length > 0) {
    const current = queue.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    let text: string;
    try {
      text = await Deno.readTextFile(join(root, current));
    } catch {
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
      if (!/\.[a-z]+$/i.test(specifier)) continue;
      const isRelative = specifier.startsWith("./") || specifier.startsWith("../");
      if (!isRelative && !mapped) continue;
      if (/^[a-z]+:/i.test(specifier)) continue;
      const file = normalize(mapped ? specifier : join(dirname(current), specifier));
      if (file.startsWith(`..${SEPARATOR}`) || file === "..") {
        problems.push(`${current}: imports ${match[1]}, which is outside the project`);
        continue;
      }
      queue.push(file);
    }
  }
  return seen;
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
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

/** Node modules the hosted edge runtime refuses to user functions (its Limits page). */
const UNAVAILABLE_ON_PLATFORM = new Set(["node:vm", "node:worker_threads", "node:child_process"]);

/** The platform's limit on a bundled function (its Limits page). */
const MAX_BUNDLE_BYTES = 20 * 1024 * 1024;

/** What each function's bundle holds: its modules (project and npm files) and their bytes. */
const sizes = new Map<string, { modules: number; bytes: number }>();

/** What an instance of each function evaluates when it starts. */
const loads = new Map<string, StartLoad>();

/**
 * The project modules an instance evaluates before it serves (its static code imports, not
 * type-only or dynamic ones), and the npm packages among them.
 */
interface StartLoad {
  modules: number;
  bytes: number;
  packages: string[];
}

function loadedAtStart(graph: { roots: string[]; modules: ModuleInfo[] }): StartLoad {
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
async function bundleSize(
  graph: { modules: ModuleInfo[]; npmPackages?: Record<string, unknown> },
): Promise<{ modules: number; bytes: number }> {
  let bytes = 0;
  let modules = 0;
  for (const module of graph.modules) {
    if (typeof module.size === "number") {
      bytes += module.size;
      modules++;
    }
  }
  const cache = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno");
  for (const id of Object.keys(graph.npmPackages ?? {})) {
    const plain = id.split("_")[0]!;
    const at = plain.lastIndexOf("@");
    const dir = join(cache, "npm", "registry.npmjs.org", plain.slice(0, at), plain.slice(at + 1));
    const counted = await folderSize(dir);
    bytes += counted.bytes;
    modules += counted.files;
  }
  return { modules, bytes };
}

async function folderSize(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        const inner = await folderSize(path);
        files += inner.files;
        bytes += inner.bytes;
      } else if (entry.isFile) {
        files++;
        bytes += (await Deno.stat(path)).size;
      }
    }
  } catch {
    // not installed there: counted as nothing
  }
  return { files, bytes };
}

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

/** Checks one function in a folder holding only what its deploy uploads; returns the problems. */
async function checkFunction(
  name: string,
  map: Map<string, string>,
  stage: string,
): Promise<string[]> {
  const problems: string[] = [];
  const entrypoint = join("supabase", "functions", name, "index.ts");
  const files = await uploadedFiles(entrypoint, map, problems);
  const folder = join(stage, name);
  for (const file of [...files, relative(root, importMapPath)]) {
    await Deno.mkdir(join(folder, dirname(file)), { recursive: true });
    await Deno.copyFile(join(root, file), join(folder, file)).catch(() => {});
  }
  const info = await run([
    "info",
    "--json",
    "--no-config",
    "--import-map",
    join(folder, relative(root, importMapPath)),
    join(folder, entrypoint),
  ]);
  if (info.code !== 0) return [...problems, `deno info failed: ${info.stderr.trim()}`];
  const graph = JSON.parse(info.stdout) as {
    roots: string[];
    modules: ModuleInfo[];
    npmPackages?: Record<string, unknown>;
  };
  const size = await bundleSize(graph);
  sizes.set(name, size);
  loads.set(name, loadedAtStart(graph));
  if (size.bytes > MAX_BUNDLE_BYTES) {
    problems.push(`${(size.bytes / 1048576).toFixed(1)} MB to bundle, over the platform's 20 MB`);
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
    if (module.specifier.startsWith("file:")) {
      const path = fromFileUrl(module.specifier);
      if (!path.startsWith(folder + SEPARATOR)) {
        problems.push(`${module.specifier}: resolved outside the uploaded files`);
      }
    }
  }
  return problems;
}

/**
 * The hosted runtime's Deno reads lock files up to version 4; newer Deno writes version 5 when it
 * rewrites the file (after a dependency change), which would break every deploy.
 */
async function lockReadableByRuntime(): Promise<string[]> {
  const lock = JSON.parse(await Deno.readTextFile(join(root, "deno.lock"))) as { version: string };
  return lock.version === "4" ? [] : [
    `deno.lock is version ${lock.version}; the platform's Deno reads version 4: rewrite it with ` +
    "deno task lock",
  ];
}

/** Entries of the functions' import map must name the same packages as the root deno.json. */
async function sameVersionsAsRoot(map: Map<string, string>): Promise<string[]> {
  const rootMap = (JSON.parse(await Deno.readTextFile(join(root, "deno.json"))) as {
    imports: Record<string, string>;
  }).imports;
  const problems: string[] = [];
  for (const [key, target] of map) {
    if (key.endsWith("/")) continue;
    if (rootMap[key] !== target) {
      problems.push(`import map: ${key} is ${target} here but ${rootMap[key]} in deno.json`);
    }
  }
  return problems;
}

/** Every function's config.toml section must name the import map. */
async function configNamesTheMap(names: string[]): Promise<string[]> {
  const config = await Deno.readTextFile(join(root, "supabase", "config.toml"));
  const sections = new Map(
    [...config.matchAll(/^\[functions\.([a-z0-9-]+)\]\n((?:[^[\n].*\n?)*)/gm)]
      .map((m) => [m[1]!, m[2]!]),
  );
  return names.filter((name) =>
    !sections.get(name)?.split("\n").includes(`import_map = "${IMPORT_MAP}"`)
  ).map((name) => `supabase/config.toml: [functions.${name}] does not set import_map`);
}

if (import.meta.main) {
  const names = await functionNames();
  const map = await loadImportMap();
  const problems = [...await sameVersionsAsRoot(map), ...await configNamesTheMap(names)];
  const stage = await Deno.makeTempDir({ prefix: "deploy-check-" });
  try {
    let uploaded = 0;
    for (const name of names) {
      const found = await checkFunction(name, map, stage);
      problems.push(...found.map((p) => `${name}: ${p}`));
      uploaded++;
    }
    // Type-check every function with the map alone, in one folder holding every uploaded file (each
    // function's own set was proven complete above).
    const all = join(stage, "_all");
    for (const name of names) await copyTree(join(stage, name), all);
    const check = await run([
      "check",
      "--quiet",
      "--no-config",
      "--import-map",
      join(all, relative(root, importMapPath)),
      ...names.map((name) => join(all, "supabase", "functions", name, "index.ts")),
    ]);
    if (check.code !== 0) problems.push(`deno check failed:\n${check.stderr.trim()}`);
    problems.push(...await lockReadableByRuntime());
    if (problems.length > 0) {
      console.error(problems.join("\n"));
      console.error(`\n${problems.length} problem(s)`);
      Deno.exitCode = 1;
    } else {
      const byBytes = [...sizes].sort((a, b) => a[1].bytes - b[1].bytes);
      for (const entry of [byBytes[0], byBytes.at(-1)]) {
        if (!entry) continue;
        const [name, size] = entry;
        console.log(`${name}: ${size.modules} files, ${(size.bytes / 1048576).toFixed(2)} MB`);
      }
      const byLoad = [...loads].sort((a, b) => a[1].bytes - b[1].bytes);
      const shown = Deno.args.includes("--sizes") ? byLoad : [byLoad[0], byLoad.at(-1)];
      console.log(
        "evaluated when an instance starts (project modules, their bytes; npm packages):",
      );
      for (const entry of shown) {
        if (!entry) continue;
        const [name, load] = entry;
        console.log(
          `  ${name}: ${load.modules} modules, ${(load.bytes / 1024).toFixed(0)} KB; ` +
            load.packages.join(", "),
        );
      }
      console.log(
        `${uploaded} functions resolve and type-check on Deno ${await pinnedDeno(
          "DENO_RUNTIME",
        )} ` +
          `with ${IMPORT_MAP} and their uploaded files only`,
      );
    }
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}
