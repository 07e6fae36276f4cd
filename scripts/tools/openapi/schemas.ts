/**
 * The document's named schemas: the contract's zod conversions (`@shared/json_schema.ts`) collected
 * into components.
 */
import { z } from "zod";
import { Id } from "@shared/common.ts";
import { ID_SCHEMA, type Json, type JsonObject, toJsonSchema } from "@shared/json_schema.ts";

type Io = "input" | "output";

/** A converted schema whose `$ref`s still point at zod's local `$defs` names. */
export interface PendingSchema {
  io: Io;
  raw: JsonObject;
}

/**
 * Collects zod conversions and turns the schemas registered with `.meta({ id })` into components.
 * A named schema whose input and output JSON differ (defaults, transforms, closed objects in
 * responses, the request rules above) gets two components: `Name` (as returned) and `NameInput`
 * (as accepted).
 */
export class SchemaCollector {
  /** Raw JSON of every named schema, per direction. */
  readonly #defs = { input: new Map<string, string>(), output: new Map<string, string>() };

  add(schema: z.ZodType, io: Io): PendingSchema {
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
    return { io, raw };
  }

  /** The components, sorted by name, and how to resolve a pending schema's references to them. */
  finish(): { components: JsonObject; resolve(pending: PendingSchema): Json } {
    const { input, output } = this.#defs;
    const same = new Map<string, boolean>();
    // Whether a schema reads the same as input and output, with every schema it refers to.
    const isSame = (id: string, seen: Set<string>): boolean => {
      const [accepted, returned] = [input.get(id), output.get(id)];
      if (accepted === undefined || returned === undefined || seen.has(id)) return true;
      if (accepted !== returned) return false;
      seen.add(id);
      const refs = [...accepted.matchAll(/"#\/\$defs\/([^"]+)"/g)].map((m) => m[1] ?? "");
      return refs.every((r) => isSame(r, seen));
    };
    const nameOf = (id: string, io: Io): string => {
      if (io === "output" || !output.has(id)) return id;
      if (!same.has(id)) same.set(id, isSame(id, new Set()));
      return same.get(id) ? id : `${id}Input`;
    };
    const rewrite = (value: Json, io: Io): Json => {
      if (Array.isArray(value)) return value.map((v) => rewrite(v, io));
      if (value === null || typeof value !== "object") return value;
      const out: JsonObject = {};
      for (const [key, v] of Object.entries(value)) {
        const def = key === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")
          ? v.slice("#/$defs/".length)
          : undefined;
        out[key] = def ? `#/components/schemas/${nameOf(def, io)}` : rewrite(v, io);
      }
      return out;
    };
    const components: JsonObject = {};
    for (const io of ["output", "input"] as const) {
      for (const [id, text] of this.#defs[io]) {
        const name = nameOf(id, io);
        if (io === "input" && name === id && output.has(id)) continue;
        components[name] = rewrite(JSON.parse(text) as Json, io);
      }
    }
    return {
      components: Object.fromEntries(
        Object.keys(components).sort().map((n) => [n, components[n]!]),
      ),
      resolve: (pending) => rewrite(pending.raw, pending.io),
    };
  }
}

/** The id schema as zod converts it, checked against the one the document writes by hand. */
export function checkIdSchema(): void {
  const { $schema: _, ...converted } = z.toJSONSchema(Id, { io: "input" }) as JsonObject;
  if (JSON.stringify(converted) !== JSON.stringify(ID_SCHEMA)) {
    throw new Error(`Id converts to ${JSON.stringify(converted)}, not the document's id schema`);
  }
}
