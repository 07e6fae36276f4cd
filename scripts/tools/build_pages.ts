/**
 * `deno task build:pages --url <project URL> --key <publishable key> [--out dist/pages]`: the web
 * pages (developer settings, consent screen, sign-in) as a static folder for any static host, since
 * the hosted platform serves no HTML from functions. Writes every page with its shared header in
 * place, the assets, the pinned browser builds of supabase-js and Swagger UI (the API reference), `app-config.json` (the project and its
 * publishable key; sign-in through the project's Auth), `openapi.json`, and `_headers` with the
 * security headers the local server sends (the format Netlify and Cloudflare Pages read; other
 * hosts: set the same headers).
 */
import { parseArgs } from "node:util";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { AppConfig } from "../server/routes/web.ts";
import {
  pageHeaders,
  readPage,
  readVendoredFile,
  REFERENCE_PATH,
  VENDORED_FILES,
} from "../server/routes/web.ts";

const root = new URL("../../", import.meta.url);
const USAGE =
  "Usage: deno task build:pages --url <project URL> --key <publishable key> [--out DIR]";

/** Writes the static pages for the project at `projectUrl` into `out`; returns the files written. */
export async function buildPages(
  options: { projectUrl: string; publishableKey: string; out: string },
): Promise<string[]> {
  const written: string[] = [];
  const write = async (path: string, data: string | Uint8Array) => {
    const target = `${options.out}/${path}`;
    await Deno.mkdir(dirname(target), { recursive: true });
    if (typeof data === "string") await Deno.writeTextFile(target, data);
    else await Deno.writeFile(target, data);
    written.push(path);
  };
  await Deno.remove(options.out, { recursive: true }).catch(() => {});
  const web = fileURLToPath(new URL("web/", root));
  for await (const path of walk(web)) {
    if (path.startsWith("_partials/")) continue;
    const source = new URL(`web/${path}`, root);
    await write(
      path,
      path.endsWith(".html") ? await readPage(source) : await Deno.readFile(source),
    );
  }
  for (const servedAt of Object.keys(VENDORED_FILES)) {
    const bytes = await readVendoredFile(servedAt);
    if (!bytes) throw new Error(`${servedAt} is missing: run deno install`);
    await write(servedAt.slice(1), bytes);
  }
  const config: AppConfig = {
    supabaseUrl: options.projectUrl.replace(/\/+$/, ""),
    supabaseAnonKey: options.publishableKey,
    localAccounts: false,
  };
  await write("app-config.json", JSON.stringify(config, null, 2) + "\n");
  await write("openapi.json", await Deno.readFile(new URL("openapi.json", root)));
  const apiOrigin = new URL(config.supabaseUrl).origin;
  const block = (path: string, headers: Record<string, string>) =>
    `${path}\n` + Object.entries(headers).map(([name, value]) => `  ${name}: ${value}\n`).join("");
  await write(
    "_headers",
    block("/*", pageHeaders(apiOrigin)) + "\n" +
      block(`${REFERENCE_PATH}*`, pageHeaders(apiOrigin, { inlineStyles: true })),
  );
  return written;
}

async function* walk(dir: string, prefix = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${dir}${prefix}`)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) yield* walk(dir, `${path}/`);
    else if (entry.isFile) yield path;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      url: { type: "string" },
      key: { type: "string" },
      out: { type: "string", default: "dist/pages" },
    },
  });
  if (!values.url || !values.key || !URL.canParse(values.url)) {
    console.error(USAGE);
    Deno.exit(2);
  }
  const files = await buildPages({
    projectUrl: values.url,
    publishableKey: values.key,
    out: values.out,
  });
  console.log(`${files.length} files in ${values.out}: upload the folder to a static host`);
}
