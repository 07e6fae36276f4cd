/**
 * Builds the OpenAPI 3.1 document from the contract table (`shared/contract.ts`), the same entries
 * the functions and the typed client read: each entry (auth, body, result, caps) becomes one
 * operation with zod's JSON Schema output, adjusted where zod cannot see what the server accepts
 * (`openapi/schemas.ts`: null read as "not given", NUL refused everywhere, trimmed strings) and
 * split where one schema stands for several shapes (`openapi/bodies.ts`: insert or update, one
 * proposal per content type, one upload per image format). The statuses an operation can answer
 * follow from its entry (`openapi/responses.ts`). Only two bodies have builders of their own
 * (proposals and uploads); everything else comes from the contract. The conformance test
 * (tests/openapi_conformance_test.ts) sends bodies generated from the document to the server and
 * checks every answer against it.
 *
 * `deno task openapi` writes openapi.json at the repository root; `deno task openapi:check` exits 1
 * when the committed file differs from what the code generates.
 */
import denoConfig from "../../deno.json" with { type: "json" };
import { JSendError, JSendFail, jsendSuccess } from "@shared/jsend.ts";
import { ContentType, contentTypes } from "@shared/content_types.ts";
import { API_AREAS, contract, type EndpointContract } from "@shared/contract.ts";
import type { Json, JsonObject } from "@shared/json_schema.ts";
import { pascal, reachable, ref, withDiscriminators } from "./openapi/json.ts";
import { checkIdSchema, type PendingSchema, SchemaCollector } from "./openapi/schemas.ts";
import {
  type BodyContext,
  contentUpdateBody,
  createOrUpdateBody,
  uploadBody,
} from "./openapi/bodies.ts";
import {
  headerComponents,
  operationFor,
  responseComponents,
  securitySchemes,
} from "./openapi/responses.ts";

export type { Json };

/** The entries the document is built from, by function name. */
export type EndpointSpecs = ReadonlyMap<string, EndpointContract>;

const documentPath = new URL("../../openapi.json", import.meta.url);

/** Every entry of the contract table. */
export function endpointSpecs(): EndpointSpecs {
  return new Map(Object.entries(contract));
}

/** Bodies described by a builder of `openapi/bodies.ts` rather than by their conversion alone. */
const specialBodies: Record<string, (body: Json, ctx: BodyContext) => Json> = {
  "create-content-update": contentUpdateBody,
  "upload-public-file": uploadBody,
};

/** Builds the whole document, deterministically (paths and components sorted by name). */
export function buildOpenApiDocument(specs: EndpointSpecs): JsonObject {
  checkIdSchema();
  const schemas = new SchemaCollector();
  const failRef = schemas.add(JSendFail, "output");
  const errorRef = schemas.add(JSendError, "output");
  // The proposals of create-content-update are described from each type's save body.
  const saveBodies = new Map<string, PendingSchema>(
    ContentType.options.map((type) => [type, schemas.add(contentTypes[type].save, "input")]),
  );
  const operations = [...specs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, spec]) => ({
      name,
      spec,
      body: schemas.add(spec.body, "input"),
      success: schemas.add(jsendSuccess(spec.result), "output"),
    }));
  const named = schemas.finish();
  const components: JsonObject = { ...named.components };
  const ctx: BodyContext = {
    components,
    saveBodies: new Map([...saveBodies].map(([type, pending]) => [type, named.resolve(pending)])),
  };

  const paths: JsonObject = {};
  for (const { name, spec, body, success } of operations) {
    const resolved = named.resolve(body);
    const special = specialBodies[name];
    const bodySchema = special
      ? special(resolved, ctx)
      : spec.createRequires
      ? createOrUpdateBody(name, resolved, spec.createRequires, ctx)
      : resolved;
    const successName = `${pascal(name)}Success`;
    components[successName] = named.resolve(success);
    paths[`/${name}`] = {
      post: operationFor(name, spec, {
        body: bodySchema,
        success: ref(successName),
        fail: named.resolve(failRef),
        error: named.resolve(errorRef),
      }),
    };
  }
  const responses = responseComponents(named.resolve(failRef), named.resolve(errorRef));
  const discriminatedPaths = withDiscriminators(paths, components);
  const allComponents = withDiscriminators(components, components) as JsonObject;
  const used = reachable([discriminatedPaths, responses], allComponents);
  const usedAreas = new Set([...specs.values()].map((spec) => spec.area));
  return {
    openapi: "3.1.0",
    info: {
      title: "RPG character builder API",
      version: denoConfig.version,
      summary: "Reference content, characters, campaigns and search for a tabletop RPG builder",
      description: [
        "Every endpoint is `POST <server>/<function-name>` with a JSON body (`{}` or an empty",
        "body when there are no parameters) and answers a JSend envelope, told apart by `status`:",
        "`success` and `fail` are HTTP 200 (`fail` when the request was refused for a reason the",
        "caller can act on); the refusals listed per operation (400, 401, 403, 409, 413, 422, 429)",
        "and server errors (500, 503) change the HTTP status. Any other method than POST (and",
        "OPTIONS, the CORS preflight) answers 405.",
        "\n\nRules of every body: no string and no object key may hold a NUL character (U+0000)",
        "or an unpaired surrogate (such as the escape `\\ud800`; bodies are I-JSON, RFC 7493);",
        "a body may nest arrays and objects at most 100 levels deep; a number must fit a double",
        "(`1e400` is refused). `minLength` and `maxLength` count UTF-16 code units, as",
        "JavaScript's `length` does: a character beyond U+FFFF counts as two. Where a body takes",
        'a row id, an integer-valued string such as `"17"` is read as that integer. Every',
        "response carries the rate-limit headers.",
        "Generated from the zod schemas the functions validate with (`deno task openapi`).",
      ].join(" ").replaceAll(" \n\n", "\n\n"),
    },
    servers: [
      {
        url: "http://{host}:{port}/functions/v1",
        description: "The local server (`deno task start`)",
        variables: {
          host: { default: "127.0.0.1", description: "Where the local server listens" },
          port: { default: "54321", description: "Its port" },
        },
      },
      {
        url: "https://{project_ref}.supabase.co/functions/v1",
        description: "A hosted Supabase project",
        variables: {
          project_ref: {
            default: "project-ref",
            description: "The project's reference (its subdomain)",
          },
        },
      },
    ],
    tags: Object.entries(API_AREAS)
      .filter(([area]) => usedAreas.has(area as keyof typeof API_AREAS))
      .map(([name, description]) => ({ name, description })),
    paths: discriminatedPaths,
    components: {
      schemas: Object.fromEntries(Object.keys(used).sort().map((name) => [name, used[name]!])),
      securitySchemes: securitySchemes(),
      headers: headerComponents(),
      responses,
    },
  };
}

/** The document as written to openapi.json. */
export function renderOpenApiDocument(specs: EndpointSpecs): string {
  return `${JSON.stringify(buildOpenApiDocument(specs), null, 2)}\n`;
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  const text = renderOpenApiDocument(endpointSpecs());
  if (check) {
    const committed = await Deno.readTextFile(documentPath).catch(() => "");
    if (committed !== text) {
      console.error("openapi.json is stale: run `deno task openapi` and commit the result");
      Deno.exit(1);
    }
    console.log("openapi.json is current");
  } else {
    await Deno.writeTextFile(documentPath, text);
    console.log(`Wrote openapi.json (${text.length} bytes)`);
  }
}
