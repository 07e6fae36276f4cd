import { env } from "../../supabase/functions/_shared/env.ts";
import { localAuthRoute } from "./routes/local_auth.ts";
import { openapiRoute } from "./routes/openapi.ts";
import { storageRoute } from "./routes/storage.ts";
import { webRoute } from "./routes/web.ts";

/** A route outside the functions: answers, or returns null to pass the request on. */
export type AppRoute = (req: Request) => Promise<Response | null>;

// The sign-in stand-in accepts any password: it exists only while local development is switched on.
const routes: AppRoute[] = env.LOCAL_DEVELOPMENT
  ? [openapiRoute, storageRoute, localAuthRoute, webRoute]
  : [openapiRoute, storageRoute, webRoute];

/** Serves the web app, the OpenAPI document and public files next to the functions. */
export async function appRoutes(req: Request): Promise<Response> {
  for (const route of routes) {
    const response = await route(req);
    if (response) return response;
  }
  return Response.json({ status: "fail", data: { message: "Not found" } }, { status: 404 });
}
