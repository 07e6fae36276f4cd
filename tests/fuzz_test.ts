/**
 * A property-based fuzz over the body of every function (found in the functions folder, so new
 * endpoints are covered without a change here): random JSON, wrong types for every declared field,
 * extra fields, huge strings, deep nesting, out-of-range numbers, non-JSON and empty bodies, wrong
 * content types, invalid UTF-8. Every answer must be a JSend envelope with HTTP 200 or 4xx, never
 * 5xx, and a call that was refused must have written no row to any public table.
 *
 * Bounded for CI: a fixed seed per function and FUZZ_RUNS cases per function (default below);
 * raise FUZZ_RUNS for a longer local run. docs/hardening.md records the timing.
 */
import fc from "fast-check";
import { equal, ok } from "node:assert/strict";
import { listFunctionNames } from "../scripts/server/server.ts";
import {
  adminSql,
  call,
  type CallResult,
  freshToken,
  makeUser,
  server,
  test,
  type TestUser,
} from "./_harness.ts";

/** Cases per function: 200 × 63 functions took 39-49 s here (docs/hardening.md). */
const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 200);
const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 20261122);
/** Calls per access token, below the 240-per-minute JWT budget. */
const CALLS_PER_TOKEN = 200;

/** Field names any endpoint might read, added to each endpoint's own declared fields. */
const COMMON_FIELDS = [
  "id",
  "name",
  "user_id",
  "content_source_id",
  "content_sources",
  "created_at",
  "updated_at",
  "is_admin",
  "__proto__",
  "constructor",
];

/** A request the fuzz sends: a JSON value, or raw bytes with a content type. */
type FuzzBody =
  | { kind: "json"; value: unknown }
  | { kind: "raw"; bytes: Uint8Array<ArrayBuffer>; contentType: string };

interface Target {
  name: string;
  fields: string[];
  auth: "jwt" | "service" | "none";
  /** Bodies shaped by the declared schema: the right types at their edges, reaching the handler. */
  shaped: fc.Arbitrary<unknown>;
}

/** A JSON Schema node of the OpenAPI document, read loosely. */
// deno-lint-ignore no-explicit-any -- the document is walked by key
type Schema = any;

/**
 * Values a schema allows, biased to its edges (minimum, maximum, longest string, every enum value),
 * with every object property optional. `deref` resolves `$ref`s.
 */
function fromSchema(
  schema: Schema,
  deref: (s: Schema) => Schema,
  depth = 0,
): fc.Arbitrary<unknown> {
  const node = deref(schema);
  if (!node || typeof node !== "object" || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  if (Array.isArray(node.enum) && node.enum.length > 0) return fc.constantFrom(...node.enum);
  if ("const" in node) return fc.constant(node.const);
  const alternatives = node.anyOf ?? node.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((a: Schema) => fromSchema(a, deref, depth + 1)));
  }
  if (Array.isArray(node.type)) {
    return fc.oneof(
      ...node.type.map((t: string) => fromSchema({ ...node, type: t }, deref, depth)),
    );
  }
  switch (node.type) {
    case "integer": {
      const low = node.minimum ??
        (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : -(2 ** 53) + 1);
      const high = node.maximum ??
        (node.exclusiveMaximum !== undefined ? node.exclusiveMaximum - 1 : 2 ** 53 - 1);
      const small = fc.integer({ min: Math.max(low, -1000), max: Math.min(high, 1000) });
      return Math.max(low, -1000) <= Math.min(high, 1000)
        ? fc.oneof(fc.constantFrom(low, high), small)
        : fc.constantFrom(low, high);
    }
    case "number":
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: node.minimum ?? -1e300,
        max: node.maximum ?? 1e300,
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "string": {
      if (node.format === "uuid") return fc.uuid();
      if (node.format === "date-time") {
        return fc.date({ min: new Date(0), max: new Date(4_102_444_800_000), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      const min = node.minLength ?? 0;
      const max = node.maxLength ?? 1000;
      return fc.oneof(
        fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 30)) }),
        fc.string({
          unit: "grapheme",
          minLength: min,
          maxLength: Math.max(min, Math.min(max, 10)),
        }),
        fc.constant("x".repeat(max)),
      );
    }
    case "array":
      return fc.array(fromSchema(node.items, deref, depth + 1), {
        minLength: Math.min(node.minItems ?? 0, 5),
        maxLength: Math.min(node.maxItems ?? 5, 5),
      });
    case "object": {
      const properties: Record<string, Schema> = node.properties ?? {};
      if (Object.keys(properties).length === 0) {
        return fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: 3,
        });
      }
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties)) {
        shape[key] = fromSchema(value, deref, depth + 1);
      }
      return fc.record(shape, { requiredKeys: [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values of every JSON type, including the edges of numbers and strings. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53,
    -(2 ** 63),
    1e308,
    -1e-308,
    0.5,
    "",
    " ",
    "-1",
    "1e400",
    "NaN",
    "null",
    "00000000-0000-0000-0000-000000000000",
    "not-a-uuid",
    "2026-13-45T99:99:99Z",
    "’",
    "\u202e",
    "\ud800",
    "<script>",
    true,
    false,
    null,
  ),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

/** Prints a case briefly when fast-check reports a counterexample. */
function printable<T extends FuzzBody>(body: T): T {
  return Object.assign(body, { [fc.toStringMethod]: () => describe(body) });
}

function jsonBody(value: unknown): FuzzBody {
  return printable({ kind: "json", value });
}

function rawBody(
  text: string | Uint8Array<ArrayBuffer>,
  contentType = "application/json",
): FuzzBody {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  return printable({ kind: "raw", bytes, contentType });
}

/** The fuzz cases of one function, weighted towards bodies that reach validation. */
function cases(target: Target): fc.Arbitrary<FuzzBody> {
  const field = fc.constantFrom(...target.fields, ...COMMON_FIELDS);
  const declared = target.fields.length > 0 ? fc.constantFrom(...target.fields) : field;
  return fc.oneof(
    // Right types at their edges, so bodies get past validation into the handler and database.
    { weight: 4, arbitrary: target.shaped.map(jsonBody) },
    // Declared fields with values of any type: wrong types, missing and extra fields.
    { weight: 6, arbitrary: fc.dictionary(field, anyValue, { maxKeys: 6 }).map(jsonBody) },
    // Any JSON at all, including arrays, strings and numbers as the whole body.
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(jsonBody) },
    // A huge string in a declared field.
    {
      weight: 1,
      arbitrary: fc.tuple(declared, fc.integer({ min: 10_000, max: 300_000 })).map(([f, n]) =>
        jsonBody({ [f]: "x".repeat(n) })
      ),
    },
    // A deeply nested value in a declared field (built as text: no recursion here).
    {
      weight: 1,
      arbitrary: fc.tuple(
        declared,
        fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 120, max: 50_000 })),
        fc.boolean(),
      ).map(
        ([f, depth, arrays]) =>
          rawBody(
            `{${JSON.stringify(f)}:${(arrays ? "[" : '{"a":').repeat(depth)}1${
              (arrays ? "]" : "}").repeat(depth)
            }}`,
          ),
      ),
    },
    // Numbers JSON allows but JavaScript cannot hold exactly.
    {
      weight: 1,
      arbitrary: fc.tuple(
        declared,
        fc.constantFrom("1e999", "-1e999", "1e-999", "123456789012345678901234567890", "-0", "1.0"),
      )
        .map(([f, n]) => rawBody(`{${JSON.stringify(f)}:${n}}`)),
    },
    // Not JSON, empty, truncated, or JSON with the wrong content type.
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom(
          "",
          " ",
          "{",
          "}",
          "[1,2",
          '{"a":}',
          "nul",
          "{}{}",
          "\u0000",
          "'single'",
          "{'a':1}",
        )
          .map((t) => rawBody(t)),
        fc.string().map((t) => rawBody(t, "text/plain")),
        fc.jsonValue({ maxDepth: 2 }).map((v) =>
          rawBody(JSON.stringify(v) ?? "", "application/x-www-form-urlencoded")
        ),
      ),
    },
    // Invalid UTF-8: lone continuation bytes, overlong forms, truncated sequences.
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom([0xff], [0xc0, 0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0x80]),
        declared,
      ).map(([bad, f]) =>
        rawBody(
          new Uint8Array([
            ...new TextEncoder().encode(`{${JSON.stringify(f)}:"`),
            ...bad,
            ...new TextEncoder().encode('"}'),
          ]),
        )
      ),
    },
  );
}

/** One count per public table, for proving that a refused call wrote nothing. */
async function rowCounter(): Promise<() => Promise<string>> {
  const tables = await adminSql<{ table_name: string }[]>`
    select table_name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`;
  const parts = tables.map(({ table_name: t }) =>
    `'${t}', (select count(*) from public."${t.replaceAll('"', '""')}")`
  );
  const query = `select json_build_object(${parts.join(", ")})::text as counts`;
  return async () => {
    const [row] = await adminSql.unsafe<{ counts: string }[]>(query);
    return row?.counts ?? "";
  };
}

/** Declared body fields and accepted credentials, read from the served OpenAPI document. */
async function targets(): Promise<Target[]> {
  // deno-lint-ignore no-explicit-any -- the document is walked loosely, by key
  const doc: any = await (await fetch(`${server.appUrl}/openapi.json`)).json().catch(() => ({}));
  const deref = (schema: Schema): Schema => {
    let node = schema;
    for (let hops = 0; typeof node?.$ref === "string" && hops < 10; hops++) {
      node = doc.components?.schemas?.[node.$ref.split("/").at(-1)];
    }
    return node;
  };
  const resolve = (schema: Schema, depth = 0): string[] => {
    if (!schema || typeof schema !== "object" || depth > 5) return [];
    if (typeof schema.$ref === "string") {
      const name = schema.$ref.split("/").at(-1);
      return resolve(doc.components?.schemas?.[name], depth + 1);
    }
    const own = Object.keys(schema.properties ?? {});
    const nested = [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]
      .flatMap((s: unknown) => resolve(s, depth + 1));
    return [...new Set([...own, ...nested])];
  };
  return (await listFunctionNames()).map((name) => {
    const operation = doc.paths?.[`/${name}`]?.post;
    const security: Record<string, unknown>[] = operation?.security ?? [{ accessToken: [] }];
    const auth = security.some((s) => "accessToken" in s)
      ? "jwt"
      : security.some((s) => "serviceSecret" in s)
      ? "service"
      : "none";
    const schema = operation?.requestBody?.content?.["application/json"]?.schema;
    const fields = resolve(schema);
    return { name, fields, auth, shaped: fromSchema(schema, deref) };
  });
}

/** Checks one answer: a JSend envelope, HTTP 200 or 4xx. Returns whether it was refused. */
function checkAnswer(res: CallResult, what: string): boolean {
  ok(res.status < 500, `${what}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  const body = res.body;
  ok(typeof body === "object" && body !== null && !("unparsed" in body), `${what}: not JSON`);
  if (body.status === "success") {
    equal(res.status, 200, what);
    ok("data" in body, `${what}: success without data`);
    return false;
  }
  equal(body.status, "fail", `${what}: ${JSON.stringify(body).slice(0, 300)}`);
  equal(typeof body.data?.message, "string", `${what}: fail without a message`);
  return true;
}

function seedFor(name: string): number {
  let hash = SEED;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  return hash;
}

function describe(body: FuzzBody): string {
  if (body.kind === "json") return JSON.stringify(body.value)?.slice(0, 200) ?? "undefined";
  return `raw ${body.contentType} ${
    JSON.stringify(new TextDecoder().decode(body.bytes).slice(0, 200))
  }`;
}

test(`fuzz: every function answers random bodies with JSend 200/4xx and refusals write nothing`, async () => {
  const counts = await rowCounter();
  const secret = Deno.env.get("CONTENT_UPDATE_SECRET") ?? "";
  const all = await targets();
  ok(all.length > 0);
  const tally = new Map<string, number>();
  for (const target of all) {
    // A fresh account per function: a fuzz body that happens to be valid may delete or change it.
    const user: TestUser = await makeUser({ tier: 2 });
    let token = user.access_token;
    let calls = 0;
    let baseline = await counts();
    await fc.assert(
      fc.asyncProperty(cases(target), async (body) => {
        if (++calls % CALLS_PER_TOKEN === 0) token = await freshToken(user);
        const bearer = target.auth === "jwt"
          ? token
          : target.auth === "service"
          ? secret
          : undefined;
        const res = await call(target.name, body.kind === "json" ? body.value : undefined, {
          ...(bearer ? { token: bearer } : {}),
          ...(body.kind === "raw"
            ? { raw: body.bytes, headers: { "content-type": body.contentType } }
            : {}),
        });
        const what = `${target.name} ${describe(body)}`;
        const refused = checkAnswer(res, what);
        tally.set(target.name, (tally.get(target.name) ?? 0) + (refused ? 0 : 1));
        const now = await counts();
        if (refused) equal(now, baseline, `${what}: a refused call changed row counts`);
        baseline = now;
      }),
      { seed: seedFor(target.name), numRuns: RUNS, endOnFailure: true },
    );
  }
  if (Deno.env.get("FUZZ_STATS")) {
    // Successes per function: how many generated bodies got past validation and were served.
    const lines = [...tally].map(([name, n]) => `${name}: ${n}/${RUNS}`);
    console.log(`fuzz successes per function (seed ${SEED}):\n${lines.join("\n")}`);
  }
});
