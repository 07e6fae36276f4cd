/**
 * JSON Schema walking for the OpenAPI build: dereferencing of component references, and the
 * removal of components nothing refers to.
 */
import { asObject, isObject, type Json, type JsonObject, mapSchema } from "@shared/json_schema.ts";

export { asObject, isObject, type Json, type JsonObject } from "@shared/json_schema.ts";

/** Every node of a schema, top-down (subschemas only, as `mapSchema` visits them). */
export function eachSchema(schema: Json, visit: (node: JsonObject) => void): void {
  mapSchema(schema, (node) => {
    visit(node);
    return node;
  });
}

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

/** Every component name a value refers to, anywhere in it. */
function referencedNames(value: Json, found: Set<string>): void {
  if (Array.isArray(value)) return value.forEach((v) => referencedNames(v, found));
  if (!isObject(value)) return;
  for (const [key, v] of Object.entries(value)) {
    if (key === "$ref" && typeof v === "string" && v.startsWith(COMPONENT)) {
      found.add(v.slice(COMPONENT.length));
    } else if (key === "mapping" && isObject(v)) {
      for (const target of Object.values(v)) {
        if (typeof target === "string" && target.startsWith(COMPONENT)) {
          found.add(target.slice(COMPONENT.length));
        }
      }
    } else {
      referencedNames(v, found);
    }
  }
}

/** The components reachable from `roots`, in their original order. */
export function reachable(roots: Json, components: JsonObject): JsonObject {
  const seen = new Set<string>();
  const pending = new Set<string>();
  referencedNames(roots, pending);
  while (pending.size > 0) {
    const [name] = pending;
    pending.delete(name!);
    if (seen.has(name!)) continue;
    seen.add(name!);
    const found = new Set<string>();
    referencedNames(components[name!] ?? null, found);
    for (const next of found) if (!seen.has(next)) pending.add(next);
  }
  return Object.fromEntries(Object.entries(components).filter(([name]) => seen.has(name)));
}

/** `create-content-source` and `content-source` become `CreateContentSource`, `ContentSource`. */
export function pascal(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_, _dash: string, c: string) => c.toUpperCase());
}
