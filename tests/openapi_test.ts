import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  buildOpenApiDocument,
  endpointSpecs,
  type Json,
  renderOpenApiDocument,
} from "../scripts/tools/openapi.ts";
import {
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
    equal(statuses.includes("401"), !spec.auth.includes("none"), `${name} 401`);
    equal(statuses.includes("403"), spec.perCharacter === true, `${name} 403`);
    ok(statuses.includes("413") && statuses.includes("429"), `${name} 413 and 429`);
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
