/**
 * Builds the OpenAPI 3.1 document from the contract table (`shared/contract.ts`), the same entries
 * the functions and the typed client read: each entry (auth, body, result, caps) becomes one
 * operation with zod's JSON Schema output. Nothing in the document is written by hand, so it
 * cannot disagree with what the functions validate, and no server module is loaded to build it.
 *
 * `deno task openapi` writes openapi.json at the repository root; `deno task openapi:check` exits 1
 * when the committed file differs from what the code generates.
 */
import { honoursIdempotencyKey } from "@shared/idempotency.ts";
import { z } from "zod";
import { JSendError, JSendFail, jsendSuccess } from "@shared/jsend.ts";
import {
  type AuthKind,
  contract,
  DEFAULT_MAX_BODY_BYTES,
  type EndpointContract,
} from "@shared/contract.ts";

/** A JSON Schema or any other JSON value of the document. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The entries the document is built from, by function name. */
export type EndpointSpecs = ReadonlyMap<string, EndpointContract>;

/** Where the local server answers; `{base_url}` of the interface. */
export const LOCAL_BASE_URL = "http://127.0.0.1:54321/functions/v1";

const documentPath = new URL("../../openapi.json", import.meta.url);

const securitySchemeOf: Readonly<Record<Exclude<AuthKind, "none">, string>> = {
  api_key: "apiKey",
  jwt: "accessToken",
  service: "serviceSecret",
};
const authOrder: readonly AuthKind[] = ["api_key", "jwt", "service", "none"];

/** Every entry of the contract table. */
export function endpointSpecs(): EndpointSpecs {
  return new Map(Object.entries(contract));
}

/** `create-api-client` becomes `createApiClient`: the operation id and the client method name. */
export function operationIdOf(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Builds the whole document, deterministically (paths and components sorted by name). */
export function buildOpenApiDocument(specs: EndpointSpecs): JsonObject {
  const schemas = new SchemaCollector();
  const failRef = schemas.add(JSendFail, "output");
  const errorRef = schemas.add(JSendError, "output");
  const operations: [string, PendingOperation][] = [...specs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, spec]) => [name, {
      spec,
      body: schemas.add(spec.body, "input"),
      success: schemas.add(jsendSuccess(spec.result), "output"),
    }]);
  const named = schemas.finish();

  const paths: JsonObject = {};
  for (const [name, pending] of operations) {
    paths[`/${name}`] = { post: operation(name, pending, named, failRef) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "RPG character builder API",
      version: "1.0.0",
      summary: "Reference content, characters, campaigns and search for a tabletop RPG builder",
      description: [
        "Every endpoint is `POST {base_url}/<function-name>` with a JSON body (`{}` when there are",
        "no parameters) and answers a JSend envelope: `success` and `fail` are HTTP 200; only the",
        "catalogued refusals (401, 403, 413, 429) and server errors change the HTTP status.",
        "Every response carries the rate-limit headers. Generated from the zod schemas the",
        "functions validate with (`deno task openapi`).",
      ].join(" "),
    },
    servers: [{
      url: "{base_url}",
      description: "The functions prefix of a deployment; the default is the local server",
      variables: {
        base_url: {
          default: LOCAL_BASE_URL,
          description: "Hosted: https://<project-ref>.supabase.co/functions/v1",
        },
      },
    }],
    paths,
    components: {
      schemas: named.components,
      securitySchemes: securitySchemes(),
      headers: headerComponents(),
      responses: responseComponents(named.resolve(failRef), named.resolve(errorRef)),
    },
  };
}

/** The document as written to openapi.json. */
export function renderOpenApiDocument(specs: EndpointSpecs): string {
  return `${JSON.stringify(buildOpenApiDocument(specs), null, 2)}\n`;
}

interface PendingOperation {
  spec: EndpointContract;
  body: PendingSchema;
  success: PendingSchema;
}

function operation(
  name: string,
  { spec, body, success }: PendingOperation,
  named: NamedSchemas,
  failRef: PendingSchema,
): JsonObject {
  const maxBody = spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const accepted = authOrder.filter((kind) => spec.auth.includes(kind));
  const responses: JsonObject = {
    "200": {
      description:
        "JSend `success` with the result, or JSend `fail` when the request was refused " +
        "for a reason the caller can act on (invalid body, ownership, tier caps)",
      headers: rateLimitHeaderRefs(),
      content: {
        "application/json": {
          schema: { oneOf: [named.resolve(success), named.resolve(failRef)] },
        },
      },
    },
    "400": { $ref: "#/components/responses/InvalidJson" },
  };
  if (!accepted.includes("none")) {
    responses["401"] = { $ref: "#/components/responses/Unauthorized" };
  }
  if (spec.perCharacter) {
    responses["403"] = { $ref: "#/components/responses/CharacterForbidden" };
  }
  responses["413"] = {
    description: `The body is larger than ${maxBody} bytes`,
    headers: rateLimitHeaderRefs(),
    content: { "application/json": { schema: named.resolve(failRef) } },
  };
  if (honoursIdempotencyKey(name)) {
    responses["409"] = {
      description: "A request with this Idempotency-Key is still being answered: retry shortly",
      headers: rateLimitHeaderRefs(),
      content: { "application/json": { schema: named.resolve(failRef) } },
    };
    responses["422"] = {
      description: "This Idempotency-Key was already used with another body or endpoint",
      headers: rateLimitHeaderRefs(),
      content: { "application/json": { schema: named.resolve(failRef) } },
    };
  }
  responses["429"] = { $ref: "#/components/responses/TooManyRequests" };
  responses["500"] = { $ref: "#/components/responses/InternalError" };
  if (spec.database !== false) {
    responses["503"] = { $ref: "#/components/responses/Unavailable" };
  }
  const op: JsonObject = {
    operationId: operationIdOf(name),
    summary: spec.summary ?? name,
    description: describeAuth(accepted) + ` The body is at most ${maxBody} bytes.`,
    security: accepted.map((kind) => kind === "none" ? {} : { [securitySchemeOf[kind]]: [] }),
    ...(honoursIdempotencyKey(name)
      ? {
        parameters: [{
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description: "Makes the write safe to retry: a repeat with the same key and body " +
            "within 24 hours gets the first answer again (marked `Idempotent-Replayed: true`) " +
            "without the work being done twice. Scoped to the caller (the user, or an API " +
            "key's client).",
          schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
        }],
      }
      : {}),
    requestBody: {
      required: true,
      content: { "application/json": { schema: named.resolve(body) } },
    },
    responses,
    "x-max-body-bytes": maxBody,
  };
  return op;
}

function describeAuth(accepted: readonly AuthKind[]): string {
  const names: Record<AuthKind, string> = {
    api_key: "an API key",
    jwt: "a user access token (JWT)",
    service: "the moderation service secret",
    none: "no credentials",
  };
  const list = accepted.map((kind) => names[kind]);
  const joined = list.length > 1 ? `${list.slice(0, -1).join(", ")} or ${list.at(-1)}` : list[0];
  return `Accepts ${joined ?? "no credentials"}.`;
}

function securitySchemes(): JsonObject {
  return {
    accessToken: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "A Supabase Auth access token of a signed-in user (any bearer that is not " +
        "36 characters long)",
    },
    apiKey: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "UUID",
      description: "A 36-character API key from create-api-client; the request runs as the " +
        "key's creator under the same row-level policies as a signed-in user",
    },
    serviceSecret: {
      type: "http",
      scheme: "bearer",
      description: "The shared secret of the moderation bot (CONTENT_UPDATE_SECRET)",
    },
  };
}

function headerComponents(): JsonObject {
  const integer = (description: string): JsonObject => ({
    description,
    schema: { type: "integer", minimum: 0 },
  });
  return {
    "Retry-After": integer("Seconds to wait before the budget admits another request"),
    "X-RateLimit-Limit": integer("Requests allowed per 60-second window for this bucket"),
    "X-RateLimit-Remaining": integer("Requests left in the current window"),
    "X-RateLimit-Reset": integer("Seconds until the window resets"),
    "X-Request-Id": {
      description: "Identifies the request in the server log; quote it when reporting a problem",
      schema: { type: "string", format: "uuid" },
    },
  };
}

function rateLimitHeaderRefs(extra: string[] = []): JsonObject {
  const headers: JsonObject = {};
  const names = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", ...extra];
  for (const name of [...names, "X-Request-Id"]) {
    headers[name] = { $ref: `#/components/headers/${name}` };
  }
  return headers;
}

function responseComponents(fail: Json, errorSchema: Json): JsonObject {
  const withBody = (description: string, schema: Json, extra: string[] = []): JsonObject => ({
    description,
    headers: rateLimitHeaderRefs(extra),
    content: { "application/json": { schema } },
  });
  return {
    CharacterForbidden: withBody(
      "Character endpoint called with an API key that has no grant for this character " +
        "(`You do not have access to this character`)",
      fail,
    ),
    InternalError: withBody(
      "Unexpected server error; the message carries the request id and never internals",
      errorSchema,
    ),
    InvalidJson: withBody("The body is not valid JSON or not UTF-8", fail),
    TooManyRequests: withBody(
      "Rate budget exceeded (120/min per API key, 240 per access token, 600 for the service " +
        "secret, 30 per IP without usable credentials); wait `Retry-After` seconds",
      fail,
      ["Retry-After"],
    ),
    Unauthorized: withBody(
      "Missing, malformed, unknown or expired credentials, or credentials this endpoint does not " +
        "accept (`Invalid API Key`, `Invalid API Key, no client found`, ...)",
      fail,
    ),
    Unavailable: withBody(
      "The database is unreachable; nothing was changed. Retry after `Retry-After` seconds",
      errorSchema,
      ["Retry-After"],
    ),
  };
}

/** A converted schema whose `$ref`s still point at zod's local `$defs` names. */
interface PendingSchema {
  io: "input" | "output";
  raw: JsonObject;
}

/** Named schemas once every conversion is in. */
interface NamedSchemas {
  components: JsonObject;
  resolve(pending: PendingSchema): Json;
}

/**
 * Collects zod conversions and turns the schemas registered with `.meta({ id })` into components.
 * A named schema whose input and output JSON differ (defaults, transforms, closed objects in
 * responses) gets two components: `Name` (as returned) and `NameInput` (as accepted).
 */
class SchemaCollector {
  readonly #pending: PendingSchema[] = [];
  /** Raw JSON of every named schema, per direction. */
  readonly #defs = { input: new Map<string, string>(), output: new Map<string, string>() };

  add(schema: z.ZodType, io: "input" | "output"): PendingSchema {
    const converted = z.toJSONSchema(schema, {
      target: "draft-2020-12",
      io,
      unrepresentable: "any",
    }) as JsonObject;
    const { $schema: _dialect, $defs, ...raw } = converted;
    for (const [id, def] of Object.entries(asObject($defs))) {
      if (id.startsWith("__")) {
        throw new Error(
          `Unnamed recursive or shared schema in ${io}: give it .meta({ id }) to name it`,
        );
      }
      const text = JSON.stringify(def);
      const known = this.#defs[io].get(id);
      if (known !== undefined && known !== text) {
        throw new Error(`Two different schemas are registered under the id ${id}`);
      }
      this.#defs[io].set(id, text);
    }
    const pending: PendingSchema = { io, raw };
    this.#pending.push(pending);
    return pending;
  }

  finish(): NamedSchemas {
    const same = new Map<string, boolean>();
    const isSame = (id: string, seen: Set<string>): boolean => {
      const cached = same.get(id);
      if (cached !== undefined) return cached;
      const input = this.#defs.input.get(id);
      const output = this.#defs.output.get(id);
      if (input === undefined || output === undefined) return true;
      if (input !== output) return false;
      if (seen.has(id)) return true;
      seen.add(id);
      const refs = [...input.matchAll(/"#\/\$defs\/([^"]+)"/g)].map((m) => m[1] ?? "");
      return refs.every((r) => isSame(r, seen));
    };
    const nameOf = (id: string, io: "input" | "output"): string => {
      if (io === "output" || !this.#defs.output.has(id)) return id;
      let result = same.get(id);
      if (result === undefined) {
        result = isSame(id, new Set());
        same.set(id, result);
      }
      return result ? id : `${id}Input`;
    };
    const rewrite = (value: Json, io: "input" | "output"): Json => {
      if (Array.isArray(value)) return value.map((v) => rewrite(v, io));
      if (value === null || typeof value !== "object") return value;
      const out: JsonObject = {};
      for (const [key, v] of Object.entries(value)) {
        const def = key === "$ref" && typeof v === "string" ? localDefName(v) : undefined;
        out[key] = def ? `#/components/schemas/${nameOf(def, io)}` : rewrite(v, io);
      }
      return out;
    };
    const components: Record<string, Json> = {};
    for (const io of ["output", "input"] as const) {
      for (const [id, text] of this.#defs[io]) {
        const name = nameOf(id, io);
        if (io === "input" && name === id && this.#defs.output.has(id)) continue;
        components[name] = rewrite(JSON.parse(text) as Json, io);
      }
    }
    return {
      components: Object.fromEntries(
        Object.keys(components).sort().map((name) => [name, components[name] ?? null]),
      ),
      resolve: (pending) => rewrite(pending.raw, pending.io),
    };
  }
}

function localDefName(ref: string): string | undefined {
  return ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined;
}

function asObject(value: Json | undefined): JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
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
