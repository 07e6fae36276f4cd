/**
 * The document's named schemas: the contract's zod conversions (`@shared/json_schema.ts`) collected
 * into components.
 */
import { z } from "zod";
import { Id } from "@shared/common.ts";
import { ID_SCHEMA, type Json, type JsonObject, toJsonSchema } from "@shared/json_schema.ts";

export {
  ID_SCHEMA,
  JSON_VALUE,
  NEW_ID_SCHEMA,
  NUL_FREE,
  NULL_AS_ABSENT,
} from "@shared/json_schema.ts";
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
    const { root: raw, defs } = toJsonSchema(schema, io);
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
