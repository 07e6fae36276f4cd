import { localObjectPath } from "../../../supabase/functions/_shared/storage/local_store.ts";
import { parseObjectName } from "../../../supabase/functions/_shared/storage/object_name.ts";

const PREFIX = "/storage/v1/object/public/";

const SAFE_HEADERS: Readonly<Record<string, string>> = {
  // Browsers must take the declared type, never guess one from the bytes.
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox",
  "Access-Control-Allow-Origin": "*",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

function notFound(): Response {
  return Response.json({ status: "fail", data: { message: "Object not found" } }, {
    status: 404,
    headers: SAFE_HEADERS,
  });
}

/**
 * Serves local public files at the URL shape Supabase Storage uses,
 * `/storage/v1/object/public/<bucket>/<path>`. Only names of the exact shape uploads are given
 * (a known bucket, `<uuid>/<sha-256>.<png|jpg|webp>`) are looked up, so no request can reach a
 * file outside the storage folder.
 */
export async function storageRoute(req: Request): Promise<Response | null> {
  const { pathname } = new URL(req.url);
  if (!pathname.startsWith(PREFIX)) return null;
  if (req.method !== "GET" && req.method !== "HEAD") {
    return new Response(null, { status: 405, headers: { ...SAFE_HEADERS, Allow: "GET, HEAD" } });
  }
  const rest = pathname.slice(PREFIX.length);
  const slash = rest.indexOf("/");
  const name = slash > 0 ? parseObjectName(rest.slice(0, slash), rest.slice(slash + 1)) : null;
  if (!name) return notFound();
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await Deno.readFile(localObjectPath(name));
  } catch {
    return notFound();
  }
  return new Response(req.method === "HEAD" ? null : bytes, {
    status: 200,
    headers: {
      ...SAFE_HEADERS,
      "Content-Type": name.contentType,
      "Content-Length": String(bytes.byteLength),
      // Content-addressed: a name never points at other bytes.
      "Cache-Control": "public, max-age=31536000, immutable",
    },
  });
}
