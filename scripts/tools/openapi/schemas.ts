/**
 * zod schemas to the document's JSON Schemas. Request bodies ("input") are converted as the server
 * reads them, which zod's own conversion does not fully show; the differences are made good here:
 *
 * - a field whose `null` the server reads as "not given" (`optionalInput`, `SaveId`) accepts null;
 * - `OptionalRef` also takes -1, `SaveId` also 0 and -1 (the web client's "none" and "new");
 * - a string that is trimmed before a minimum length must hold a character other than spaces;
 * - no string and no object key may hold NUL (`parseJsonBody` refuses it in any value or key), so
 *   every string has a pattern that says so, every open object a `propertyNames` pattern, and every
 *   "any JSON value" is `JsonValue`, which carries the same rule down;
 * - an instant's offset is at most ±15:59 (`InstantInput`'s refinement).
 */
import { z } from "zod";
import { Id, InstantInput, OptionalRef, SaveId } from "@shared/common.ts";
import { asObject, isObject, type Json, type JsonObject, mapSchema } from "./json.ts";

/** Pattern of a string without NUL characters. */
export const NUL_FREE = "^[^\\x00]*$";
/** Pattern of a string without NUL characters that is not only white space (it is trimmed). */
export const NOT_BLANK = "^[^\\x00]*[^\\s\\x00][^\\x00]*$";

/** How the document marks the `null` that the server reads as a field left out. */
export const NULL_AS_ABSENT = "null: the same as leaving the field out";

/** The component every "any JSON value" of a request body refers to. */
export const JSON_VALUE = "JsonValue";

const MAX_ID = 2 ** 53 - 1;

/** Any JSON value a body may carry where the schema leaves the value open. */
function jsonValueSchema(): JsonObject {
  const self = { $ref: `#/$defs/${JSON_VALUE}` };
  return {
    description: "Any JSON value, with no NUL character in any string or object key",
    anyOf: [
      { type: "string", pattern: NUL_FREE },
      { type: "number" },
      { type: "boolean" },
      { type: "null" },
      { type: "array", items: self },
      { type: "object", propertyNames: { pattern: NUL_FREE }, additionalProperties: self },
    ],
  };
}

/** Keywords that say nothing about which values a schema admits. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "readOnly",
  "writeOnly",
  "deprecated",
  "default",
  "examples",
  "$comment",
]);

/** Whether a schema admits any value at all (`{}` with annotations at most). */
function admitsAnything(node: JsonObject): boolean {
  return Object.keys(node).every((key) => ANNOTATIONS.has(key));
}

/**
 * Whether an anchored pattern can only match text without NUL: no `.`, negated class or escape
 * that could stand for NUL. Otherwise the NUL rule is added beside it.
 */
function excludesNul(pattern: string): boolean {
  return pattern.startsWith("^") && pattern.endsWith("$") &&
    !/(^|[^\\])\.|\[\^|\\[SDWxuc0pP]/.test(pattern);
}

function hasType(node: JsonObject, type: string): boolean {
  return node.type === type || (Array.isArray(node.type) && node.type.includes(type));
}

/** Whether a schema, by its own keywords, admits null. */
function admitsNull(node: JsonObject): boolean {
  if (admitsAnything(node) || hasType(node, "null") || node.const === null) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  return ["anyOf", "oneOf"].some((key) => {
    const list = node[key];
    return Array.isArray(list) && list.some((s) => isObject(s) && admitsNull(s));
  });
}

/** Replaces a node's keywords in place (an override may only change the object it is given). */
function replaceWith(target: Record<string, unknown>, replacement: JsonObject): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, replacement);
}

/** `{ anyOf: [node, ...more] }`, keeping the node's annotations outside. */
function widened(node: JsonObject, more: JsonObject[]): JsonObject {
  const { description, ...rest } = node;
  return {
    ...(description !== undefined ? { description } : {}),
    anyOf: [Array.isArray(rest.anyOf) && Object.keys(rest).length === 1 ? rest.anyOf : rest, more]
      .flat() as JsonObject[],
  };
}

function safelyAccepts(schema: z.ZodType, value: unknown): boolean {
  try {
    return schema.safeParse(value).success;
  } catch {
    return false;
  }
}

/** The JSON Schema of a row id, as the document gives it. */
export const ID_SCHEMA: JsonObject = {
  type: "integer",
  exclusiveMinimum: 0,
  maximum: MAX_ID,
};

/** The `id` of a create-or-update body that inserts. */
export const NEW_ID_SCHEMA: JsonObject = {
  description: "Left out, null, 0 or -1: a new record",
  enum: [null, 0, -1],
};

/**
 * zod's pattern of an ISO instant, narrowed to what the server stores: offsets up to ±15:59 (the
 * refinement of `InstantInput`; zod's pattern allows ±23:59) and no year 0000 (which Postgres
 * refuses; years run from 0001).
 */
function instantPattern(pattern: string): string {
  const edits: [string, string][] = [
    ["[+-](?:[01]\\d|2[0-3]):[0-5]\\d", "[+-](?:0\\d|1[0-5]):[0-5]\\d"],
    ["|[02468][048]00|", "|(?:[2468][048]|0[48])00|"],
    ["-02-29|\\d{4}-", "-02-29|(?:[1-9]\\d{3}|0[1-9]\\d\\d|00[1-9]\\d|000[1-9])-"],
  ];
  let narrowed = pattern;
  for (const [from, to] of edits) {
    if (!narrowed.includes(from)) throw new Error(`zod's instant pattern has no ${from}`);
    narrowed = narrowed.replace(from, to);
  }
  return narrowed;
}

/** Adjusts zod's conversion of one request-body schema node to what the server accepts. */
function overrideInput(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const zod = ctx.zodSchema as z.ZodType;
  const json = ctx.jsonSchema;
  if (zod === (SaveId as unknown)) {
    replaceWith(json, {
      description: "A row id updates that row; left out, null, 0 or -1 inserts a new one",
      anyOf: [ID_SCHEMA, { enum: [0, -1] }, { type: "null" }],
    });
    return;
  }
  if (zod === (OptionalRef as unknown)) {
    replaceWith(json, {
      description: "A row id, or null or -1 for none",
      anyOf: [ID_SCHEMA, { const: -1 }, { type: "null" }],
    });
    return;
  }
  if (zod === (InstantInput as unknown)) json.pattern = instantPattern(String(json.pattern));
  const def = (zod as { _zod?: { def?: { type?: string; in?: z.ZodType } } })._zod?.def;
  // A preprocessed field (`optionalInput`) may read null as "not given".
  const preprocessed = def?.type === "pipe" && def.in?._zod.def.type === "transform";
  if (preprocessed && !admitsNull(json as JsonObject) && safelyAccepts(zod, null)) {
    replaceWith(json, widened(json as JsonObject, [{ type: "null", description: NULL_AS_ABSENT }]));
  }
  // A trimmed string with a minimum length refuses one made of spaces.
  const min = json.minLength;
  if (json.type === "string" && typeof min === "number" && min > 0) {
    if (!safelyAccepts(zod, " ".repeat(min)) && safelyAccepts(zod, "x".repeat(min))) {
      json["x-not-blank"] = true;
    }
  }
}

/** The NUL rule (and the not-blank rule) on every string, object key and open value of a body. */
function nulFree(schema: Json): Json {
  return mapSchema(schema, (node) => {
    if (admitsAnything(node)) return { ...node, $ref: `#/$defs/${JSON_VALUE}` };
    const out: JsonObject = { ...node };
    const notBlank = out["x-not-blank"] === true;
    delete out["x-not-blank"];
    if (hasType(out, "string") && out.const === undefined && out.enum === undefined) {
      const wanted = notBlank ? NOT_BLANK : NUL_FREE;
      if (typeof out.pattern !== "string") {
        out.pattern = wanted;
      } else if (!excludesNul(out.pattern)) {
        out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { pattern: wanted }];
      }
    }
    const open = out.additionalProperties !== false;
    if (hasType(out, "object") && open && out.propertyNames === undefined) {
      out.propertyNames = { pattern: NUL_FREE };
    }
    return out;
  });
}

/** A converted schema whose `$ref`s still point at zod's local `$defs` names. */
export interface PendingSchema {
  io: "input" | "output";
  raw: JsonObject;
}

/** Named schemas once every conversion is in. */
export interface NamedSchemas {
  components: JsonObject;
  resolve(pending: PendingSchema): Json;
}

/**
 * Collects zod conversions and turns the schemas registered with `.meta({ id })` into components.
 * A named schema whose input and output JSON differ (defaults, transforms, closed objects in
 * responses, the request rules above) gets two components: `Name` (as returned) and `NameInput`
 * (as accepted).
 */
export class SchemaCollector {
  readonly #pending: PendingSchema[] = [];
  /** Raw JSON of every named schema, per direction. */
  readonly #defs = { input: new Map<string, string>(), output: new Map<string, string>() };

  add(schema: z.ZodType, io: "input" | "output"): PendingSchema {
    const converted = z.toJSONSchema(schema, {
      target: "draft-2020-12",
      io,
      unrepresentable: "any",
      ...(io === "input" ? { override: overrideInput } : {}),
    }) as JsonObject;
    const { $schema: _dialect, $defs, ...rest } = converted;
    const raw = io === "input" ? asObject(nulFree(rest)) : rest;
    const defs: JsonObject = { ...asObject($defs) };
    if (io === "input") {
      for (const [id, def] of Object.entries(defs)) defs[id] = nulFree(def);
      defs[JSON_VALUE] = jsonValueSchema();
    }
    for (const [id, def] of Object.entries(defs)) {
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

/** The id schema as zod converts it, checked against the one the document writes by hand. */
export function checkIdSchema(): void {
  const { $schema: _, ...converted } = z.toJSONSchema(Id, { io: "input" }) as JsonObject;
  if (JSON.stringify(converted) !== JSON.stringify(ID_SCHEMA)) {
    throw new Error(`Id converts to ${JSON.stringify(converted)}, not the document's id schema`);
  }
}
