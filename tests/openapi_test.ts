import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { honoursIdempotencyKey } from "@shared/idempotency.ts";
import { CONTENT_TYPE_NAMES, ContentType, contentTypes } from "@shared/content_types.ts";
import { proposalFields } from "@shared/content_updates.ts";
import { UPLOAD_DATA_PATTERNS } from "@shared/uploads.ts";
import { decodeStrictBase64 } from "../supabase/functions/_shared/base64.ts";
import { sniffImageFormat } from "../supabase/functions/_shared/storage/image_format.ts";
import {
  buildOpenApiDocument,
  endpointSpecs,
  type Json,
  renderOpenApiDocument,
} from "../scripts/tools/openapi.ts";
import {
  adminSql,
  call,
  type CallResult,
  localServer,
  makeApiKey,
  makeUser,
  randomIp,
  server,
  test,
} from "./_harness.ts";

const specs = endpointSpecs();
const document = buildOpenApiDocument(specs);

/** The value at a path of object keys, or undefined. */
function at(value: Json | undefined, ...path: string[]): Json | undefined {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = current[key];
  }
  return current;
}

function keysOf(value: Json | undefined): string[] {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? Object.keys(value)
    : [];
}

/** Every value in the document at which a JSON Schema stands. */
function schemasIn(doc: Json): Json[] {
  const found: Json[] = [];
  for (const schema of Object.values(at(doc, "components", "schemas") ?? {})) found.push(schema);
  const visit = (value: Json | undefined): void => {
    if (value === null || typeof value !== "object") return;
    if (Array.isArray(value)) return value.forEach(visit);
    for (const [key, v] of Object.entries(value)) {
      if (key === "schema") found.push(v);
      else visit(v);
    }
  };
  visit(at(doc, "paths"));
  visit(at(doc, "components", "responses"));
  visit(at(doc, "components", "headers"));
  return found;
}

// Validates a response body against the schema the document gives for that status.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ ...document, $id: "https://openapi.test/doc.json" });

function documented(fn: string, status: number): (body: unknown) => boolean {
  const response = at(document, "paths", `/${fn}`, "post", "responses", String(status));
  ok(response !== undefined, `${fn} documents HTTP ${status}`);
  const ref = at(response, "$ref");
  const pointer = typeof ref === "string"
    ? `${ref}/content/application~1json/schema`
    : `#/paths/~1${fn}/post/responses/${status}/content/application~1json/schema`;
  return ajv.compile({ $ref: `https://openapi.test/doc.json${pointer}` });
}

function assertDocumented(fn: string, res: CallResult): void {
  const check = documented(fn, res.status);
  ok(check(res.body), `${fn} HTTP ${res.status} body ${JSON.stringify(res.body)} matches the doc`);
  for (const header of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    match(res.headers.get(header) ?? "", /^\d+$/, `${fn} HTTP ${res.status} carries ${header}`);
  }
}

test("openapi: the generated document is valid OpenAPI 3.1 (@readme/openapi-parser)", async () => {
  // Plain JSON typed loosely: checking its shape is exactly what the validator is for.
  const api = structuredClone(document) as unknown as Parameters<typeof validate>[0];
  const result = await validate(api);
  ok(result.valid, result.valid ? "" : compileErrors(result));
  equal(at(document, "openapi"), "3.1.0");
});

test("openapi: every schema is valid JSON Schema 2020-12 and every security scheme exists", () => {
  const meta = new Ajv2020({ strict: false, validateFormats: false });
  for (const schema of schemasIn(document)) {
    ok(meta.validateSchema(schema as object), JSON.stringify(meta.errors));
  }
  const schemes = keysOf(at(document, "components", "securitySchemes"));
  deepStrictEqual(schemes.sort(), ["accessToken", "apiKey", "serviceSecret"]);
  for (const name of keysOf(at(document, "paths"))) {
    const security = at(document, "paths", name, "post", "security");
    ok(Array.isArray(security) && security.length > 0, `${name} declares its security`);
    for (const requirement of security) {
      for (const scheme of keysOf(requirement)) ok(schemes.includes(scheme), `${name}: ${scheme}`);
    }
  }
});

test("openapi: every function is POST /<name> with its auth, body cap and catalogued responses", () => {
  deepStrictEqual(keysOf(at(document, "paths")), localServer!.functionNames.map((n) => `/${n}`));
  for (const [name, spec] of specs) {
    const op = at(document, "paths", `/${name}`, "post");
    const statuses = keysOf(at(op, "responses"));
    const actsForUser = spec.auth.includes("jwt") || spec.auth.includes("api_key");
    equal(statuses.includes("401"), spec.auth.some((k) => k !== "none"), `${name} 401`);
    equal(statuses.includes("403"), actsForUser, `${name} 403`);
    equal(
      at(op, "responses", "403", "$ref"),
      actsForUser
        ? `#/components/responses/${spec.perCharacter ? "CharacterForbidden" : "Forbidden"}`
        : undefined,
      `${name} 403 names the character refusals`,
    );
    equal(statuses.includes("409"), honoursIdempotencyKey(name), `${name} 409`);
    equal(statuses.includes("422"), honoursIdempotencyKey(name), `${name} 422`);
    equal(
      statuses.includes("503"),
      spec.database !== false || spec.auth.includes("jwt"),
      `${name} 503`,
    );
    for (const always of ["200", "400", "413", "429", "500"]) {
      ok(statuses.includes(always), `${name} ${always}`);
    }
    deepStrictEqual(at(op, "tags"), [spec.area], `${name} is tagged with its area`);
    equal(at(op, "x-max-body-bytes"), spec.maxBodyBytes ?? 1024 * 1024);
    ok(at(op, "requestBody", "content", "application/json", "schema"), `${name} body schema`);
  }
  deepStrictEqual(at(document, "paths", "/report-client-error", "post", "security"), [{}]);
  equal(
    at(document, "paths", "/report-client-error", "post", "responses", "413", "description"),
    "The body is larger than 512 bytes",
  );
  deepStrictEqual(at(document, "paths", "/create-api-client", "post", "security"), [
    { accessToken: [] },
  ]);
  deepStrictEqual(
    keysOf(at(document, "components", "responses", "TooManyRequests", "headers")).sort(),
    [
      "Retry-After",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
      "X-Request-Id",
    ],
  );
});

test("openapi: generation is deterministic", () => {
  equal(renderOpenApiDocument(endpointSpecs()), renderOpenApiDocument(specs));
});

test("openapi: GET {app_url}/openapi.json serves the generated document", async () => {
  const res = await fetch(`${server.appUrl}/openapi.json`);
  equal(res.status, 200);
  match(res.headers.get("content-type") ?? "", /^application\/json/);
  equal(res.headers.get("access-control-allow-origin"), "*");
  deepStrictEqual(await res.json(), document);
  const post = await fetch(`${server.appUrl}/openapi.json`, { method: "POST", body: "{}" });
  equal(post.status, 405);
  await post.body?.cancel();
});

test("openapi: real success, fail, 401, 413 and 429 responses match the documented schemas", async () => {
  const success = documented("find-api-client", 200);
  ok(!success({ status: "success", data: [{ id: "not a number" }] }), "the check can fail");
  const user = await makeUser();
  const token = user.access_token;
  assertDocumented(
    "create-api-client",
    await call("create-api-client", { name: "doc" }, { token }),
  );
  assertDocumented("create-api-client", await call("create-api-client", {}, { token }));
  assertDocumented("find-api-client", await call("find-api-client", {}, { token }));
  const { apiKey } = await makeApiKey(user);
  assertDocumented("find-api-client", await call("find-api-client", {}, { token: apiKey }));
  assertDocumented(
    "find-api-client",
    await call("find-api-client", {}, { token: crypto.randomUUID() }),
  );
  const report = {
    code: "save_failed",
    surface: "sheet",
    release: "local",
    trace_id: crypto.randomUUID(),
  };
  assertDocumented("report-client-error", await call("report-client-error", report));
  assertDocumented(
    "report-client-error",
    await call("report-client-error", { ...report, extra: "x".repeat(600) }),
  );
  const ip = randomIp();
  let limited: CallResult | undefined;
  for (let i = 0; i < 40 && !limited; i++) {
    const res = await call("find-api-client", {}, { ip });
    if (res.status === 429) limited = res;
  }
  ok(limited, "the per-IP budget runs out");
  assertDocumented("find-api-client", limited);
  match(limited.headers.get("retry-after") ?? "", /^\d+$/);
});

/** A component by the name a `$ref` gives, or the schema itself. */
function component(schema: Json | undefined): Json | undefined {
  const name = at(schema, "$ref");
  return typeof name === "string" && name.startsWith("#/components/schemas/")
    ? at(document, "components", "schemas", name.slice("#/components/schemas/".length))
    : schema;
}

/** Every schema node a request body can reach, through references. */
function requestSchemas(): Json[] {
  const found: Json[] = [];
  const seen = new Set<string>();
  const one = ["additionalProperties", "items", "not", "propertyNames", "contains"];
  const visit = (schema: Json | undefined): void => {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return;
    found.push(schema);
    const ref = schema.$ref;
    if (typeof ref === "string" && !seen.has(ref)) {
      seen.add(ref);
      visit(component({ $ref: ref }));
    }
    for (const key of one) visit(schema[key]);
    for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
      const list = schema[key];
      if (Array.isArray(list)) list.forEach(visit);
    }
    for (const key of ["properties", "patternProperties"]) {
      Object.values(schema[key] ?? {}).forEach((s) => visit(s as Json));
    }
  };
  for (const name of keysOf(at(document, "paths"))) {
    visit(
      at(document, "paths", name, "post", "requestBody", "content", "application/json", "schema"),
    );
  }
  return found;
}

test("openapi: request bodies state the rules of every string, key and open value", () => {
  const nulFree = (pattern: Json | undefined) =>
    typeof pattern === "string" && !new RegExp(pattern, "u").test("a\0b");
  for (const node of requestSchemas()) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
    const text = JSON.stringify(node).slice(0, 200);
    const types = Array.isArray(node.type) ? node.type : [node.type];
    ok(Object.keys(node).length > 0, "no request schema admits anything at all");
    if (types.includes("string") && node.const === undefined && node.enum === undefined) {
      const patterns = [
        node.pattern,
        ...((node.allOf ?? []) as Json[]).map((s) => at(s, "pattern")),
      ];
      ok(
        node.format === "uuid" || patterns.some(nulFree),
        `a string refuses NUL: ${text}`,
      );
    }
    if (types.includes("object") && node.additionalProperties !== false) {
      ok(nulFree(at(node, "propertyNames", "pattern")), `keys refuse NUL: ${text}`);
    }
  }
  // A trimmed name that must not be empty is not blank either.
  const name = at(component(at(document, "components", "schemas", "CampaignInsert")), "properties");
  ok(!new RegExp(String(at(name, "name", "pattern")), "u").test("   "));
  ok(new RegExp(String(at(name, "name", "pattern")), "u").test(" a "));
  // get-user's `_id` is a profile id (a positive integer) or a user's UUID.
  const id = at(
    document,
    "paths",
    "/get-user",
    "post",
    "requestBody",
    "content",
    "application/json",
    "schema",
    "properties",
    "_id",
  );
  const variants = at(id, "anyOf");
  ok(Array.isArray(variants));
  deepStrictEqual(variants.map((v) => [at(v, "type"), at(v, "format")]), [
    ["string", "uuid"],
    ["integer", undefined],
  ]);
});

test("openapi: create-or-update bodies are an insert and an update, told apart by id", () => {
  const body = (name: string) =>
    at(document, "paths", `/${name}`, "post", "requestBody", "content", "application/json");
  for (const [name, spec] of specs) {
    if (!spec.createRequires) continue;
    const variants = at(body(name), "schema", "oneOf");
    ok(Array.isArray(variants) && variants.length === 2, `${name} has two variants`);
    const [insert, update] = variants.map(component);
    deepStrictEqual(at(insert, "required") ?? [], [...spec.createRequires], `${name} insert`);
    deepStrictEqual(at(insert, "properties", "id", "enum"), [null, 0, -1], `${name} new id`);
    deepStrictEqual(at(update, "required"), ["id"], `${name} update`);
    equal(at(update, "properties", "id", "exclusiveMinimum"), 0, `${name} row id`);
    for (const managed of ["created_at", "updated_at", "user_id"]) {
      const field = at(insert, "properties", managed);
      if (field !== undefined) equal(at(field, "readOnly"), true, `${name} ${managed}`);
    }
    for (const required of spec.createRequires) {
      const field = JSON.stringify(at(insert, "properties", required));
      ok(!field.includes('"type":"null"'), `${name}: an insert's ${required} is not null`);
    }
  }
  // The web client's markers of a new record are accepted, as the server reads them.
  const check = ajv.compile({
    $ref: "https://openapi.test/doc.json#/paths/~1create-character/post/requestBody/content/" +
      "application~1json/schema",
  });
  for (const id of [0, -1, null]) ok(check({ id, name: null }), `create-character id ${id}`);
  ok(check({ id: 5, level: null }), "null is 'not given' in an update");
  ok(!check({ id: -2 }), "other negative ids are refused");
});

test("openapi: JSend answers are discriminated by status, proposals by type and action", () => {
  for (const [name, spec] of specs) {
    const schema = at(
      document,
      "paths",
      `/${name}`,
      "post",
      "responses",
      "200",
      "content",
      "application/json",
      "schema",
    );
    const mapping = at(schema, "discriminator", "mapping");
    equal(at(schema, "discriminator", "propertyName"), "status", name);
    deepStrictEqual(
      keysOf(mapping),
      ["success", "fail", ...(spec.upstream ? ["error"] : [])],
      `${name}'s answers`,
    );
    for (const target of Object.values(mapping as Record<string, string>)) {
      ok(at(component({ $ref: target }), "properties", "status", "const"), `${name}: ${target}`);
    }
  }
  const proposal = at(
    document,
    "paths",
    "/create-content-update",
    "post",
    "requestBody",
    "content",
    "application/json",
    "schema",
  );
  equal(at(proposal, "discriminator", "propertyName"), "type");
  const spell = component({ $ref: at(proposal, "discriminator", "mapping", "spell") as Json });
  equal(at(spell, "discriminator", "propertyName"), "action");
  const create = component({ $ref: at(spell, "discriminator", "mapping", "CREATE") as Json });
  deepStrictEqual(at(create, "properties", "data", "required"), ["name", "rank"]);
  // The web client sends the whole fetched record as a proposal's data.
  const check = ajv.compile({
    $ref: "https://openapi.test/doc.json#/paths/~1create-content-update/post/requestBody/" +
      "content/application~1json/schema",
  });
  const fetched = { id: 1, created_at: "2026-01-01T00:00:00Z", updated_at: "x", user_id: null };
  const change = { type: "spell", action: "UPDATE", ref_id: 1, content_source_id: 1 };
  ok(check({ ...change, data: { ...fetched, content_source_id: 1, name: "Fixed" } }));
  ok(!check({ ...change, data: fetched }), "an update changes at least one field");
  ok(!check({ ...change, data: { name: "Fixed", keys: {} } }), "only a spell's fields");
});

test("openapi: servers are URLs with variables, and every operation has a tag", () => {
  const servers = at(document, "servers") as Json[];
  for (const entry of servers) {
    const url = String(at(entry, "url"));
    const filled = url.replace(
      /\{([a-z_]+)\}/g,
      (_, name: string) => String(at(entry, "variables", name, "default")),
    );
    ok(/^https?:\/\/[^/{}]+\/functions\/v1$/.test(filled), `${url} is a URL once filled`);
    ok(!/^\{/.test(url), `${url} starts with a scheme`);
  }
  const tags = (at(document, "tags") as Json[]).map((t) => at(t, "name"));
  for (const name of keysOf(at(document, "paths"))) {
    const [tag] = at(document, "paths", name, "post", "tags") as Json[];
    ok(tags.includes(tag as string), `${name} has a declared tag`);
  }
});

test("openapi: each upload variant's data pattern is what the server recognises as that format", () => {
  const toBase64 = (bytes: number[]) => btoa(String.fromCharCode(...bytes));
  const signatures: Record<string, number[]> = {
    png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    jpeg: [0xff, 0xd8, 0xff],
    webp: [0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50],
  };
  const formats = Object.keys(UPLOAD_DATA_PATTERNS) as (keyof typeof UPLOAD_DATA_PATTERNS)[];
  const bytes = fc.oneof(
    fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 20 }),
    fc.tuple(fc.constantFrom(...Object.values(signatures)), fc.array(fc.nat(255), { maxLength: 9 }))
      .map(([head, tail]) => [...head, ...tail]),
    // A signature with one byte changed.
    fc.tuple(fc.constantFrom(...Object.values(signatures)), fc.nat(11), fc.nat(255)).map(
      ([head, at, value]) => head.map((b, i) => (i === at ? value : b)),
    ),
  );
  fc.assert(
    fc.property(bytes, (file) => {
      const text = toBase64(file);
      for (const format of formats) {
        const matches = new RegExp(UPLOAD_DATA_PATTERNS[format]).test(text);
        equal(matches, sniffImageFormat(new Uint8Array(file)) === format, `${format} ${text}`);
      }
    }),
    { seed: 20261126, numRuns: 2000 },
  );
  for (const format of formats) {
    fc.assert(
      fc.property(
        fc.stringMatching(new RegExp(UPLOAD_DATA_PATTERNS[format]), { maxLength: 40 }),
        (text) => {
          const decoded = decodeStrictBase64(text);
          ok(decoded !== null, `${text} decodes`);
          equal(sniffImageFormat(decoded), format, text);
        },
      ),
      { seed: 20261126, numRuns: 500 },
    );
  }
});

test("openapi: what an insert and a proposal need is what the database needs", async () => {
  for (const type of CONTENT_TYPE_NAMES) {
    const { table, createRequires } = contentTypes[type];
    const columns = await adminSql<{ name: string; needed: boolean }[]>`
      select a.attname as name,
             a.attnotnull and not a.atthasdef and a.attidentity = '' as needed
      from pg_attribute a
      where a.attrelid = ${`public.${table}`}::regclass and a.attnum > 0 and not a.attisdropped`;
    const needed = columns.filter((c) => c.needed).map((c) => c.name);
    // content_source_id is also checked by the server before the insert (its source must be
    // writable), whether or not the column has a default.
    deepStrictEqual(
      new Set(createRequires),
      new Set([
        ...needed,
        ...columns.some((c) => c.name === "content_source_id") && type !== "content-source"
          ? ["content_source_id"]
          : [],
      ]),
      `${type}: createRequires`,
    );
    if (!(ContentType.options as string[]).includes(type)) continue;
    const [row] = await adminSql<{ fields: string[] }[]>`
      select private.content_update_fields(${type}) as fields`;
    // The database may let a proposal set a column the API does not show (a search vector);
    // the document names only fields of the record.
    const resource = Object.keys(contentTypes[type].resource.shape);
    const stored = (row?.fields ?? []).filter((field) => resource.includes(field));
    deepStrictEqual(
      [...proposalFields(type as ContentType)].sort(),
      stored.sort(),
      `${type}: the fields a proposal may set`,
    );
  }
});

test("openapi: the web client's recorded bodies are valid by the document", async () => {
  const calls: { function: string; body_example: unknown }[] = JSON.parse(
    await Deno.readTextFile(new URL("./fixtures/web-client-calls.json", import.meta.url)),
  );
  // The document gives ids as integers; the server also reads "17" as 17 (its description says
  // so), and the client sends some ids that way.
  const numericIds = (value: unknown, key = ""): unknown => {
    if (typeof value === "string" && /^_?id$/.test(key) && /^\d+$/.test(value)) {
      return Number(value);
    }
    if (Array.isArray(value)) return value.map((v) => numericIds(v));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numericIds(v, k)]));
    }
    return value;
  };
  let checked = 0;
  for (const { function: name, body_example: body } of calls) {
    const text = JSON.stringify(body);
    // Lines for functions of other services, and bodies with placeholders, are not requests.
    if (at(document, "paths", `/${name}`) === undefined || /"\.\.\.|<[a-z]/.test(text)) continue;
    const check = ajv.compile({
      $ref: `https://openapi.test/doc.json#/paths/~1${name}/post/requestBody/content/` +
        "application~1json/schema",
    });
    ok(check(numericIds(body)), `${name} ${text}: ${ajv.errorsText(check.errors)}`);
    checked++;
  }
  ok(checked > 60, `${checked} bodies checked`);
});
