/**
 * JSON Schema walking for the OpenAPI build: component references followed, and the components
 * nothing refers to left out.
 */
import { asObject, type Json, type JsonObject } from "@shared/json_schema.ts";

const COMPONENT = "#/components/schemas/";

/** The component name of a `$ref`, or undefined for any other schema. */
export function refName(schema: Json | undefined): string | undefined {
  const ref = asObject(schema).$ref;
  return typeof ref === "string" && ref.startsWith(COMPONENT)
    ? ref.slice(COMPONENT.length)
    : undefined;
}

/** A reference to a component. */
export function ref(name: string): JsonObject {
  return { $ref: `${COMPONENT}${name}` };
}

/** Follows `$ref`s to components until a schema that is not only a reference. */
export function deref(schema: Json | undefined, components: JsonObject): JsonObject {
  let node = asObject(schema);
  for (let hops = 0; hops < 20; hops++) {
    const name = refName(node);
    if (name === undefined) return node;
    node = asObject(components[name]);
  }
  throw new Error("A $ref chain does not end");
}

/**
 * The components reachable from `roots`, in their original order: through `$ref`s and
 * discriminator mappings, the only strings that are a whole component reference.
 */
export function reachable(roots: Json, components: JsonObject): JsonObject {
  const seen = new Set<string>();
  const visit = (value: Json) => {
    for (const [, name] of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (!seen.has(name!)) {
        seen.add(name!);
        visit(components[name!] ?? null);
      }
    }
  };
  visit(roots);
  return Object.fromEntries(Object.entries(components).filter(([name]) => seen.has(name)));
}

/** `create-content-source` and `content-source` become `CreateContentSource`, `ContentSource`. */
export function pascal(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_, _dash: string, c: string) => c.toUpperCase());
}
