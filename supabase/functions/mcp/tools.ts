/**
 * The MCP tools, read off the contract table: every endpoint that takes an API key is a tool of
 * the same name, described by its summary and rules, with the input schema of its body as the
 * OpenAPI document converts it (`@shared/json_schema.ts`) and the annotations its effect implies.
 */
import type { Tool } from "./sdk.ts";
import {
  contract,
  type ContractOf,
  DEFAULT_MAX_BODY_BYTES,
  type EndpointContract,
  type EndpointName,
} from "@shared/contract.ts";
import { honoursIdempotencyKey, IDEMPOTENCY_KEY_PATTERN } from "@shared/idempotency.ts";
import { isObject, type Json, type JsonObject, toJsonSchema } from "@shared/json_schema.ts";

/**
 * Endpoints that take an API key and are not tools: an upload carries an image as up to 2 MiB of
 * base64, which a model neither holds nor should pass through its context.
 */
const NOT_TOOLS = ["upload-public-file"] as const;

type TakesApiKey<N extends EndpointName> = "api_key" extends ContractOf<N>["auth"][number] ? N
  : never;

/** The name of a tool: an endpoint that takes an API key. */
export type ToolName = Exclude<
  { [N in EndpointName]: TakesApiKey<N> }[EndpointName],
  (typeof NOT_TOOLS)[number]
>;

/** The argument of a write tool that names a retry, as the Idempotency-Key header does. */
export const IDEMPOTENCY_ARGUMENT = "idempotency_key";

const IDEMPOTENCY_KEY_SCHEMA: JsonObject = {
  type: "string",
  pattern: IDEMPOTENCY_KEY_PATTERN.source,
  description: "Names this call so that a retry with the same key and arguments is answered " +
    "with the first call's result instead of doing the work again (1 to 255 printable ASCII " +
    "characters, no space at either end; as the API's Idempotency-Key header)",
};

/** The contract as a table read by any name. */
const entries: Readonly<Record<string, EndpointContract>> = contract;

/** Whether an endpoint is a tool. */
export function isToolName(name: string): name is ToolName {
  // Own entries only: `constructor` and the like are no endpoint's name.
  const entry = Object.hasOwn(entries, name) ? entries[name] : undefined;
  return entry !== undefined && entry.auth.includes("api_key") &&
    !(NOT_TOOLS as readonly string[]).includes(name);
}

/** The largest body a tool takes: its endpoint's cap, the API's default unless it sets one. */
export function largestToolBody(): number {
  return Math.max(
    ...toolNames().map((name) => entries[name]?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
  );
}

/** Every tool's name, sorted. */
export function toolNames(): ToolName[] {
  return Object.keys(contract).filter(isToolName).sort();
}

let listed: Tool[] | null = null;

/** Every tool as `tools/list` answers it, built on first use and kept for the instance's life. */
export function listTools(): Tool[] {
  listed ??= toolNames().map((name) => toolOf(name, contract[name]));
  return listed;
}

function toolOf(name: ToolName, entry: EndpointContract): Tool {
  return {
    name,
    description: describe(entry),
    inputSchema: inputSchemaOf(name, entry) as Tool["inputSchema"],
    annotations: {
      readOnlyHint: entry.effect === "read",
      destructiveHint: entry.effect === "destructive",
      // Every tool reaches this API's own data only.
      openWorldHint: false,
    },
  };
}

/** The summary, what a create-or-update body needs, and the entry's rules, as sentences. */
function describe(entry: EndpointContract): string {
  const sentences = [`${entry.summary}.`];
  const requires = entry.createRequires;
  if (requires !== undefined) {
    const needs = requires.length === 0
      ? "every field has a default"
      : `it needs ${requires.map((key) => `\`${key}\``).join(", ")}`;
    sentences.push(
      `Without \`id\` (or with null, 0 or -1) it creates a new record, and ${needs}; with a row ` +
        "id it changes only the fields given.",
    );
  }
  sentences.push(...entry.rules ?? []);
  return sentences.join(" ");
}

/**
 * The body's JSON Schema with an object at its root, as MCP requires: a body registered under a
 * name (`$ref` at the root) is inlined, and what it refers to travels along in `$defs`. Write
 * tools also take `idempotency_key`.
 */
function inputSchemaOf(name: string, entry: EndpointContract): JsonObject {
  const { root, defs } = toJsonSchema(entry.body, "input");
  const { $ref, ...annotations } = root;
  const named = typeof $ref === "string" ? defs[$ref.replace("#/$defs/", "")] : root;
  const body: JsonObject = isObject(named) ? { ...named, ...annotations } : {};
  if (body.type !== "object" || ["anyOf", "oneOf", "allOf"].some((key) => key in body)) {
    throw new Error(`${name}: a tool's body must be one object schema`);
  }
  const properties: JsonObject = isObject(body.properties) ? { ...body.properties } : {};
  if (IDEMPOTENCY_ARGUMENT in properties) {
    throw new Error(`${name}: its body has a field named ${IDEMPOTENCY_ARGUMENT}`);
  }
  if (honoursIdempotencyKey(name)) properties[IDEMPOTENCY_ARGUMENT] = IDEMPOTENCY_KEY_SCHEMA;
  const schema: JsonObject = { ...body, properties };
  const used = referencedDefs(schema, defs);
  return Object.keys(used).length > 0 ? { ...schema, $defs: used } : schema;
}

/** The `$defs` a schema refers to, directly or through each other. */
function referencedDefs(schema: JsonObject, defs: JsonObject): JsonObject {
  const used: JsonObject = {};
  const pending: Json[] = [schema];
  while (pending.length > 0) {
    const text = JSON.stringify(pending.pop());
    for (const [, id] of text.matchAll(/"#\/\$defs\/([^"]+)"/g)) {
      if (id === undefined || id in used) continue;
      const def = defs[id];
      if (def === undefined) throw new Error(`A schema refers to a missing definition: ${id}`);
      used[id] = def;
      pending.push(def);
    }
  }
  return used;
}
