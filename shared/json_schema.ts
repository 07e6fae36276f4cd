/**
 * The one conversion of the contract's zod schemas to JSON Schema (draft 2020-12), which the
 * OpenAPI document and the MCP tools' input schemas are both built from. Request bodies ("input")
 * are converted as the server reads them, which zod's own conversion does not fully show; the
 * differences are made good here:
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
import { InstantInput, OptionalRef, SaveId } from "@shared/common.ts";

/** A JSON Schema or any other JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object, such as a schema that is not a boolean. */
export type JsonObject = { [key: string]: Json };

/** Whether a JSON value is an object (not an array, not null). */
export function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A JSON value as an object, or `{}` when it is not one. */
export function asObject(value: Json | undefined): JsonObject {
  return isObject(value) ? value : {};
}

// Keywords whose value is one schema, a list of schemas, or a map of schemas (JSON Schema 2020-12).
const ONE = [
  "additionalProperties",
  "items",
  "not",
  "propertyNames",
  "contains",
  "if",
  "then",
  "else",
  "unevaluatedProperties",
  "unevaluatedItems",
];
const LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs", "dependentSchemas"];

/**
 * Rebuilds a schema bottom-up: every subschema is mapped first, then `fn` gets the node with its
 * mapped children. Booleans (schemas `true` and `false`) are left as they are.
 */
export function mapSchema(schema: Json, fn: (node: JsonObject) => JsonObject): Json {
  if (!isObject(schema)) return schema;
  const node: JsonObject = { ...schema };
  for (const key of ONE) {
    if (key in node) node[key] = mapSchema(node[key] ?? null, fn);
  }
  for (const key of LIST) {
    const list = node[key];
    if (Array.isArray(list)) node[key] = list.map((s) => mapSchema(s, fn));
  }
  for (const key of MAP) {
    const map = node[key];
    if (isObject(map)) {
      node[key] = Object.fromEntries(
        Object.entries(map).map(([name, s]) => [name, mapSchema(s, fn)]),
      );
    }
  }
  return fn(node);
}

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

/** A converted schema: its root, and the named schemas (`.meta({ id })`) its `#/$defs/` refer to. */
export interface ConvertedSchema {
  root: JsonObject;
  defs: JsonObject;
}

/**
 * Converts a zod schema as the server reads it (`input`, request bodies, with the rules above) or
 * as it answers (`output`). Input conversions always define `JsonValue`.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): ConvertedSchema {
  const converted = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    ...(io === "input" ? { override: overrideInput } : {}),
  }) as JsonObject;
  const { $schema: _dialect, $defs, ...rest } = converted;
  const root = io === "input" ? asObject(nulFree(rest)) : rest;
  const defs: JsonObject = { ...asObject($defs) };
  if (io === "input") {
    for (const [id, def] of Object.entries(defs)) defs[id] = nulFree(def);
    defs[JSON_VALUE] = jsonValueSchema();
  }
  return { root, defs };
}
