/**
 * Serves the web app (the static files under `web/`) at the app origin, its configuration at
 * `/app-config.json`, and the browser build of supabase-js from the installed npm package.
 */
import denoConfig from "../../../deno.json" with { type: "json" };

const webRoot = new URL("../../../web/", import.meta.url);

/** The API reference page, rendered from openapi.json by Swagger UI. */
export const REFERENCE_PATH = "/reference/";

/** Where the pages find supabase-js: the package's self-contained browser (UMD) build. */
export const SUPABASE_BROWSER_PATH = "/assets/vendor/supabase.js";

const contentTypes: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  json: "application/json; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  txt: "text/plain; charset=utf-8",
};

/** What the pages read at start: which Supabase project to sign in with and call. */
export interface AppConfig {
  supabaseUrl: string;
  supabaseAnonKey: string;
  /** True on the local server, whose sign-in creates local accounts (see `local_auth.ts`). */
  localAccounts: boolean;
}

/** Answers GET and HEAD for the app's pages and assets; passes everything else on. */
export async function webRoute(req: Request): Promise<Response | null> {
  if (req.method !== "GET" && req.method !== "HEAD") return null;
  const url = new URL(req.url);
  if (url.pathname === "/app-config.json") {
    return respond(req, JSON.stringify(await appConfig(url)), "json", 200);
  }
  if (url.pathname in VENDORED_FILES) {
    const bytes = await readVendoredFile(url.pathname);
    const ext = url.pathname.endsWith(".css") ? "css" : "js";
    return bytes ? respond(req, bytes, ext, 200) : null;
  }
  const file = await resolvePage(url.pathname);
  const apiOrigin = new URL((await appConfig(url)).supabaseUrl).origin;
  if (file) {
    const body = file.ext === "html" ? await readPage(file.url) : await Deno.readFile(file.url);
    return respond(req, body, file.ext, 200, apiOrigin);
  }
  if (wantsHtml(req)) {
    return respond(req, await readPage(new URL("404.html", webRoot)), "html", 404, apiOrigin);
  }
  return null;
}

const SITE_HEADER_SLOT = "<!-- site-header -->";

/** Reads a page, putting the one shared site header (`web/_partials/`) where the page asks for it. */
export async function readPage(url: URL): Promise<string> {
  const [page, header] = await Promise.all([
    Deno.readTextFile(url),
    Deno.readTextFile(new URL("_partials/site_header.html", webRoot)),
  ]);
  const indented = header.trimEnd().split("\n").map((line) => `    ${line}`).join("\n");
  return page.replace(`    ${SITE_HEADER_SLOT}`, indented);
}

/**
 * The configuration the pages start from. `WEB_SUPABASE_URL` and `WEB_SUPABASE_ANON_KEY` point
 * them at a hosted project (its Auth and its functions); without them they use this local server,
 * and its local sign-in in local development.
 */
export async function appConfig(requestUrl: URL): Promise<AppConfig> {
  const hostedUrl = Deno.env.get("WEB_SUPABASE_URL");
  const hostedKey = Deno.env.get("WEB_SUPABASE_ANON_KEY");
  if (hostedUrl && hostedKey) {
    return { supabaseUrl: hostedUrl, supabaseAnonKey: hostedKey, localAccounts: false };
  }
  // Loaded here only: they read the server's configuration, which building the pages does not need.
  const { env } = await import("../../../supabase/functions/_shared/env.ts");
  return {
    supabaseUrl: Deno.env.get("APP_URL") ?? requestUrl.origin,
    supabaseAnonKey: await (await import("./local_auth.ts")).localAnonKey(),
    // The sign-in page offers local accounts only where the sign-in stand-in is mounted.
    localAccounts: env.LOCAL_DEVELOPMENT,
  };
}

/** Maps a URL path to a file under `web/`: `/a/b` and `/a/b/` serve `a/b/index.html`. */
async function resolvePage(pathname: string): Promise<{ url: URL; ext: string } | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  const segments = decoded.split("/").filter(Boolean);
  // Hidden files, parent references and odd characters never reach the file system.
  if (segments.some((s) => s.startsWith(".") || !/^[A-Za-z0-9._-]+$/.test(s))) return null;
  const relative = segments.join("/");
  const candidates = /\.[a-z0-9]+$/.test(relative)
    ? [relative]
    : [relative ? `${relative}/index.html` : "index.html"];
  for (const candidate of candidates) {
    const url = new URL(candidate, webRoot);
    try {
      if ((await Deno.stat(url)).isFile) {
        const ext = candidate.split(".").at(-1) ?? "";
        if (ext in contentTypes) return { url, ext };
      }
    } catch {
      // not there: try the next candidate
    }
  }
  return null;
}

/**
 * Browser files the pages load from pinned npm packages (deno.json), by the path they are served
 * at: supabase-js's browser build, and Swagger UI for the API reference page.
 */
export const VENDORED_FILES: Readonly<Record<string, { pkg: VendoredPackage; path: string }>> = {
  [SUPABASE_BROWSER_PATH]: { pkg: "@supabase/supabase-js", path: "dist/umd/supabase.js" },
  "/assets/vendor/swagger-ui/swagger-ui-bundle.js": {
    pkg: "swagger-ui-dist",
    path: "swagger-ui-bundle.js",
  },
  "/assets/vendor/swagger-ui/swagger-ui.css": { pkg: "swagger-ui-dist", path: "swagger-ui.css" },
};
type VendoredPackage = "@supabase/supabase-js" | "swagger-ui-dist";

const vendored = new Map<string, Promise<Uint8Array<ArrayBuffer> | null>>();

/**
 * Reads a vendored file, once. `deno task start` installs only the packages the server imports, so
 * the package is installed here on first use when it is missing (see `installPackage`).
 */
export function readVendoredFile(servedAt: string): Promise<Uint8Array<ArrayBuffer> | null> {
  const file = VENDORED_FILES[servedAt];
  if (!file) return Promise.resolve(null);
  let read = vendored.get(servedAt);
  if (!read) {
    read = readPackageFile(file.pkg, file.path);
    vendored.set(servedAt, read);
  }
  return read;
}

/** The UMD build of the pinned supabase-js. */
export function readSupabaseBrowserBuild(): Promise<Uint8Array<ArrayBuffer> | null> {
  return readVendoredFile(SUPABASE_BROWSER_PATH);
}

async function readPackageFile(
  pkg: VendoredPackage,
  inPackage: string,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const spec = denoConfig.imports[pkg];
  const version = spec.slice(spec.lastIndexOf("@") + 1);
  try {
    await installPackage(pkg);
    // Wherever Deno put it: node_modules, or its global npm cache without one.
    return await Deno.readFile(new URL(import.meta.resolve(`${pkg}/${inPackage}`)));
  } catch (e) {
    console.error(
      `${inPackage} of ${pkg} ${version} could not be read (${
        e instanceof Error ? e.message.split("\n")[0] : e
      }): run deno install`,
    );
    return null;
  }
}

/**
 * Makes Deno install a pinned package by importing its package.json, which runs none of its code.
 * The specifier is computed so that Deno does not count the package among the modules of the
 * server's graph: with `--unstable-npm-lazy-caching` (the start task) those alone are installed at
 * start, and the browser builds only when a page first asks for them.
 */
async function installPackage(pkg: VendoredPackage): Promise<void> {
  const manifest = [pkg, "package.json"].join("/");
  await import(manifest, { with: { type: "json" } });
}

function wantsHtml(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("text/html");
}

/**
 * The headers every page gets; `apiOrigin` is where its scripts may connect besides itself. The
 * API reference page (Swagger UI) sets inline styles, which only it may.
 */
export function pageHeaders(
  apiOrigin: string,
  options: { inlineStyles?: boolean } = {},
): Record<string, string> {
  const styles = options.inlineStyles ? "'self' 'unsafe-inline'" : "'self'";
  return {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    // The consent screen must never be framed by another site (clickjacking).
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": `default-src 'self'; script-src 'self'; style-src ${styles}; ` +
      `img-src 'self' data:; connect-src 'self' ${apiOrigin}; frame-ancestors 'none'; ` +
      "base-uri 'none'; form-action 'self'",
  };
}

/** A response with safe headers; pages may connect only to their own origin and the API's. */
function respond(
  req: Request,
  body: BodyInit,
  ext: string,
  status: number,
  apiOrigin = "",
): Response {
  const headers: Record<string, string> = {
    "Content-Type": contentTypes[ext] ?? "application/octet-stream",
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
  };
  if (ext === "html") {
    const inlineStyles = new URL(req.url).pathname.startsWith(REFERENCE_PATH);
    Object.assign(headers, pageHeaders(apiOrigin, { inlineStyles }));
  }
  return new Response(req.method === "HEAD" ? null : body, { status, headers });
}
