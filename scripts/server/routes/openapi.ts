import { endpointSpecs, renderOpenApiDocument } from "../../tools/openapi.ts";

const headers = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
  "Cache-Control": "no-cache",
};

// Built on the first request from the contract table, then kept: it cannot change while the
// process runs.
let document: Promise<string> | undefined;

/**
 * Serves the OpenAPI document at `{app_url}/openapi.json`, generated from the contract table
 * exactly as `deno task openapi` generates the committed file.
 */
export async function openapiRoute(req: Request): Promise<Response | null> {
  if (new URL(req.url).pathname !== "/openapi.json") return null;
  if (req.method === "OPTIONS") return new Response(null, { status: 204, headers });
  if (req.method !== "GET" && req.method !== "HEAD") {
    return Response.json(
      { status: "fail", data: { message: "Method not allowed: use GET for /openapi.json" } },
      { status: 405, headers: { ...headers, Allow: "GET, HEAD, OPTIONS" } },
    );
  }
  document ??= Promise.resolve().then(() => renderOpenApiDocument(endpointSpecs()));
  let text: string;
  try {
    text = await document;
  } catch (e) {
    document = undefined;
    console.error(`OpenAPI document could not be built: ${e instanceof Error ? e.message : e}`);
    return Response.json(
      { status: "error", message: "The OpenAPI document could not be built" },
      { status: 500, headers },
    );
  }
  return new Response(req.method === "HEAD" ? null : text, {
    headers: { ...headers, "Content-Type": "application/json; charset=utf-8" },
  });
}
