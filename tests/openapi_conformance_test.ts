/**
 * The OpenAPI document tells the truth: a fuzz run driven by the served `/openapi.json` alone. For
 * every operation, request bodies are generated from the operation's own request schema (checked
 * valid by the document before they are sent), with the credentials its `security` lists and now
 * and then an Idempotency-Key where it takes one, and every answer must
 *
 * - never be a 5xx;
 * - have a status the operation lists, and a body its schema for that status admits;
 * - never be a JSend `fail` for a reason in the body alone (a missing or invalid field): only
 *   refusals that depend on stored data (an unknown or foreign record, a tier cap) may happen.
 *
 * Each operation runs against a fresh account (supporter tier 2) that owns a content source, a
 * character, a campaign and an API client with a grant on the character (and, for a content
 * type's operations, one record of that type), so generated ids can name real rows. Rules across
 * fields that no schema states are in the operations' descriptions; `documentedRules` below
 * applies each to a generated body and checks that the description states it.
 *
 * Seeded (CONFORMANCE_SEED) and bounded (CONFORMANCE_RUNS bodies per operation).
 */
import fc from "fast-check";
import { ok } from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  call,
  type CallResult,
  hosted,
  makeApiKey,
  makeUser,
  server,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import { type Schema, SchemaArbitraries } from "./support/schema_arbitrary.ts";

const RUNS = Number(Deno.env.get("CONFORMANCE_RUNS") ?? 40);
const SEED = Number(Deno.env.get("CONFORMANCE_SEED") ?? 20261126);
/** Generated bodies the document itself refuses (a generator gap) may be skipped, this many. */
const MAX_SKIPPED_SHARE = 0.2;

/** A body-only refusal: what validation and the database's field checks answer. */
const BODY_REFUSAL =
  /^(Missing required field|Unknown field|Invalid value|Invalid JSON|Invalid request body|Invalid update action|Invalid content type)/;

/** The rows an operation's account owns, so generated ids can name them. */
interface World {
  user: TestUser;
  apiKey: string;
  clientId: number;
  sourceId: number;
  characterId: number;
  campaignId: number;
  /** A record of the operation's content type, when it has one. */
  recordId: number | null;
}

// deno-lint-ignore no-explicit-any -- bodies are generated JSON, edited by key
type Body = any;

/**
 * The cross-field rules the document states in words, per operation: each makes a generated body
 * keep the rule, and `mentions` is text the operation's description must contain.
 */
const documentedRules: Record<
  string,
  { mentions: string[]; apply: (body: Body, via: Credential, world: World) => Body }
> = {
  "search-data": {
    mentions: ["`level_min` must not be greater than `level_max`", "`rank_min` greater than"],
    apply: (body) => {
      const lo = body.level_min ?? body.level;
      const hi = body.level_max ?? body.level;
      if (lo !== null && lo !== undefined && hi !== null && hi !== undefined && lo > hi) {
        body.level_min = hi;
        body.level_max = lo;
      }
      if (
        typeof body.rank_min === "number" && typeof body.rank_max === "number" &&
        body.rank_min > body.rank_max
      ) {
        [body.rank_min, body.rank_max] = [body.rank_max, body.rank_min];
      }
      return body;
    },
  },
  "update-user": {
    mentions: ["lists each `source_id` at most once", "at most 4000 characters long as JSON"],
    apply: (body) => {
      if (Array.isArray(body.subscribed_content_sources)) {
        const seen = new Set();
        body.subscribed_content_sources = body.subscribed_content_sources.filter((s: Body) =>
          !seen.has(s.source_id) && seen.add(s.source_id)
        );
      }
      if (body.site_theme && JSON.stringify(body.site_theme).length > 4000) body.site_theme = {};
      return body;
    },
  },
  "create-content-source": {
    mentions: ["`foundry_id` is another name of `external_id`", "`keys.access_key` of at least 8"],
    apply: (body) => {
      if ("foundry_id" in body && "external_id" in body) body.foundry_id = body.external_id;
      // The source may require a key from an earlier call: keys sent are kept valid.
      if (body.require_key === true || "keys" in body) {
        const key = body.keys?.access_key;
        if (typeof key !== "string" || [...key].length < 8) {
          body.keys = { ...(body.keys ?? {}), access_key: "access-key-1" };
        }
      }
      return body;
    },
  },
  "create-archetype": {
    mentions: ["a name of at most 190 characters"],
    apply: (body) => {
      if (typeof body.name === "string" && body.name.length > 190) {
        body.name = body.name.slice(0, 190);
      }
      return body;
    },
  },
  "create-content-update": {
    mentions: [
      "with `ref_id` equal to `content_source_id`",
      "an `id` that is `ref_id` (or -1, 0 or null) and a `content_source_id` that is the proposal's",
    ],
    apply: (body) => {
      if (body.type === "content-source") body.ref_id = body.content_source_id;
      const data = body.data ?? {};
      if (typeof data.id === "number" && data.id > 0) {
        if (body.ref_id === undefined) delete data.id;
        else data.id = body.ref_id;
      }
      if ("content_source_id" in data) data.content_source_id = body.content_source_id;
      return body;
    },
  },
  "get-user": {
    mentions: ["With an API key the body is `{}`"],
    apply: (body, via) => via === "apiKey" ? {} : body,
  },
};

/** The credential a call is made with: one the operation lists, or a wrong one. */
type Credential = "none" | "apiKey" | "accessToken" | "serviceSecret" | "wrong";

/**
 * The document the server serves; the emulated hosted project serves none (a deployment publishes
 * the committed file beside its pages), so there it is the one the same generator writes.
 */
async function servedDocument(): Promise<unknown> {
  if (hosted) {
    const { endpointSpecs, renderOpenApiDocument } = await import("../scripts/tools/openapi.ts");
    return JSON.parse(renderOpenApiDocument(endpointSpecs()));
  }
  return await (await fetch(`${server.appUrl}/openapi.json`)).json();
}

/** Removes the files an account uploaded to the local store (the hosted one is thrown away). */
async function removeUploads(userId: string): Promise<void> {
  if (hosted) return;
  const { localStorageRoot } = await import("../supabase/functions/_shared/storage/local_store.ts");
  for (const bucket of ["portraits", "backgrounds"]) {
    await Deno.remove(`${localStorageRoot()}/${bucket}/${userId}`, { recursive: true })
      .catch(() => {});
  }
}

async function serviceSecret(): Promise<string> {
  const set = Deno.env.get("CONTENT_UPDATE_SECRET");
  if (set) return set;
  const { env } = await import("../supabase/functions/_shared/env.ts");
  return env.CONTENT_UPDATE_SECRET ?? "";
}

/** The content type an operation reads or writes (`create-class-archetype`: `class-archetype`). */
function contentTypeOf(name: string, types: readonly string[]): string | null {
  const type = name.replace(/^(find|create)-/, "");
  return type !== name && types.includes(type) ? type : null;
}

async function makeWorld(name: string, type: string | null): Promise<World> {
  const user = await makeUser({ tier: 2 });
  const token = user.access_token;
  const source = successData(
    await call("create-content-source", { name: "Conformance" }, {
      token,
    }),
  );
  const character = successData(await call("create-character", { name: "Fuzzy" }, { token }));
  const campaign = successData(await call("create-campaign", { name: "Fuzz" }, { token }));
  const { clientId, apiKey } = await makeApiKey(user);
  successData(
    await call("grant-character-access", {
      client_id: clientId,
      user_id: user.user_id,
      character_id: character.id,
    }, { token }),
  );
  let recordId: number | null = null;
  if (type === "content-source") recordId = source.id;
  else if (type !== null) {
    const needs: Record<string, unknown> = { name: "Fuzzed", content_source_id: source.id };
    if (type === "spell") needs.rank = 1;
    if (type === "ability-block") needs.type = "feat";
    recordId = successData(await call(`create-${type}`, needs, { token })).id;
  }
  if (name === "delete-user") {
    // An account that owns a content source cannot be deleted: this one can.
    successData(
      await call("delete-content", { type: "content-source", id: source.id }, { token }),
    );
  }
  return {
    user,
    apiKey,
    clientId,
    sourceId: source.id,
    characterId: character.id,
    campaignId: campaign.id,
    recordId,
  };
}

function isRowId(schema: Schema): boolean {
  return schema?.type === "integer" && schema.exclusiveMinimum === 0;
}

function isUuid(schema: Schema): boolean {
  return schema?.type === "string" && schema.format === "uuid";
}

function seedFor(name: string): number {
  let hash = SEED;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  return hash;
}

test("openapi conformance: bodies valid by the document get only documented answers", async () => {
  // deno-lint-ignore no-explicit-any -- the document is walked by key
  const doc: any = await servedDocument();
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema({ ...doc, $id: "https://openapi.test/doc.json" });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const validator = (pointer: string) => {
    let check = compiled.get(pointer);
    if (!check) {
      check = ajv.compile({ $ref: `https://openapi.test/doc.json#${pointer}` });
      compiled.set(pointer, check);
    }
    return check;
  };
  const secret = await serviceSecret();
  // Content types: the `find-<type>` operations of the content area.
  const contentTypes: string[] = Object.keys(doc.paths)
    .filter((p) => p.startsWith("/find-") && doc.paths[p].post.tags?.includes("content"))
    .map((p) => p.slice("/find-".length));
  const names = Object.keys(doc.paths).map((p) => p.slice(1)).sort();
  ok(names.length > 40, "the document lists the operations");
  for (const [name, rule] of Object.entries(documentedRules)) {
    const description = String(doc.paths[`/${name}`]?.post?.description ?? "");
    for (const text of rule.mentions) {
      ok(description.includes(text), `${name}'s description states the rule "${text}"`);
    }
  }

  const problems: string[] = [];
  const tally: string[] = [];
  for (const name of names) {
    const started = performance.now();
    const op = doc.paths[`/${name}`].post;
    const path = `/paths/~1${name}/post`;
    const world = await makeWorld(name, contentTypeOf(name, contentTypes));
    const ids = [world.sourceId, world.characterId, world.campaignId, world.clientId];
    if (world.recordId !== null) ids.push(world.recordId);
    const arbitraries = new SchemaArbitraries(doc.components.schemas, {
      forProperty(property, schema) {
        if (isUuid(schema)) {
          return fc.oneof(fc.constant(world.user.user_id), fc.uuid({ version: [4] }));
        }
        if (!isRowId(schema)) return undefined;
        const own = property === "content_source_id"
          ? [world.sourceId]
          : property === "character_id"
          ? [world.characterId]
          : property === "campaign_id"
          ? [world.campaignId]
          : property === "client_id"
          ? [world.clientId]
          : property === "id" && world.recordId !== null
          ? [world.recordId]
          : ids;
        return fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...own) },
          { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 ** 31 }) },
        );
      },
    });
    const bodySchema = op.requestBody.content["application/json"].schema;
    const validBody = validator(`${path}/requestBody/content/application~1json/schema`);
    const credentials: Credential[] = (op.security as Record<string, unknown>[]).map((s) =>
      ("apiKey" in s
        ? "apiKey"
        : "accessToken" in s
        ? "accessToken"
        : "serviceSecret" in s
        ? "serviceSecret"
        : "none") as Credential
    );
    const takesKey = (op.parameters ?? []).some((p: Schema) => p.name === "Idempotency-Key");
    const statuses = new Set(Object.keys(op.responses));
    const rule = documentedRules[name];
    let skipped = 0;
    let successes = 0;
    const answers = new Map<string, number>();
    const cases = fc.record({
      body: arbitraries.of(bodySchema),
      via: fc.oneof(
        { weight: 9, arbitrary: fc.constantFrom(...credentials) },
        { weight: 1, arbitrary: fc.constant<Credential>("wrong") },
      ),
      // Now and then a key, sometimes one used before (a replay, or 422 for another body).
      key: takesKey
        ? fc.option(fc.integer({ min: 1, max: 12 }).map((n) => `retry-${n}`), { freq: 4 })
        : fc.constant(null),
    });
    const result = await fc.check(
      fc.asyncProperty(cases, async ({ body: generated, via, key }) => {
        const body = rule ? rule.apply(structuredClone(generated), via, world) : generated;
        if (!validBody(body)) {
          skipped++;
          return true;
        }
        const token = via === "apiKey"
          ? world.apiKey
          : via === "accessToken"
          ? world.user.access_token
          : via === "serviceSecret"
          ? secret
          : via === "wrong"
          ? crypto.randomUUID()
          : undefined;
        const res: CallResult = await call(name, body, {
          ...(token ? { token } : {}),
          ...(key ? { headers: { "idempotency-key": `${world.user.user_id}-${key}` } } : {}),
        });
        const what = `${name} via ${via}: HTTP ${res.status} ${
          JSON.stringify(res.body).slice(0, 400)
        } for ${JSON.stringify(body).slice(0, 600)}`;
        if (res.status >= 500) throw new Error(`server error: ${what}`);
        if (!statuses.has(String(res.status))) throw new Error(`undocumented status: ${what}`);
        const response = op.responses[String(res.status)];
        const pointer = typeof response.$ref === "string"
          ? `${response.$ref.slice(1)}/content/application~1json/schema`
          : `${path}/responses/${res.status}/content/application~1json/schema`;
        const answer = validator(pointer);
        if (!answer(res.body)) {
          throw new Error(
            `answer not as documented (${ajv.errorsText(answer.errors).slice(0, 300)}): ${what}`,
          );
        }
        if (res.status === 200 && res.body?.status === "success") successes++;
        const seen = `${res.status} ${String(res.body?.data?.message ?? res.body?.status)}`;
        answers.set(seen.slice(0, 80), (answers.get(seen.slice(0, 80)) ?? 0) + 1);
        if (res.body?.status === "fail") {
          const message = String(res.body.data?.message ?? "");
          if (via !== "wrong" && BODY_REFUSAL.test(message)) {
            throw new Error(`refused for the body alone: ${what}`);
          }
        }
        return true;
      }),
      { seed: seedFor(name), numRuns: RUNS, endOnFailure: true },
    );
    if (name === "upload-public-file") await removeUploads(world.user.user_id);
    if (result.failed) {
      problems.push(
        `${name}: ${
          result.errorInstance instanceof Error
            ? result.errorInstance.message
            : result.counterexample
        }`,
      );
    }
    if (skipped > RUNS * MAX_SKIPPED_SHARE) {
      problems.push(`${name}: ${skipped} of ${RUNS} generated bodies were invalid by the document`);
    }
    const common = [...answers].sort((a, b) => b[1] - a[1]).slice(0, 4)
      .map(([answer, n]) => `    ${n} × ${answer}`);
    tally.push(
      `${name}: ${successes} of ${RUNS} succeeded, ${skipped} skipped, ${
        Math.round(performance.now() - started)
      } ms\n${common.join("\n")}`,
    );
  }
  if (Deno.env.get("CONFORMANCE_STATS")) console.log(tally.join("\n"));
  ok(problems.length === 0, `The document and the server disagree:\n${problems.join("\n\n")}`);
});
