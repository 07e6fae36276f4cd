/**
 * JSON Schema walking for the OpenAPI build: component references followed, the components nothing
 * refers to left out, and discriminators: a `oneOf` of named object schemas that each fix a
 * required property to their own constant values (JSend's `status`, a proposal's `type` and
 * `action`, an upload's `type`) gets `discriminator: { propertyName, mapping }`, so client
 * generators pick the member by that value.
 */
import { asObject, isObject, type Json, type JsonObject } from "@shared/json_schema.ts";

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

/** The members of a union schema, or undefined for any other schema. */
function membersOf(node: JsonObject): Json[] | undefined {
  const members = node.oneOf ?? node.anyOf;
  return Array.isArray(members) && members.length > 0 ? members : undefined;
}

/**
 * The values a schema allows for a required property it fixes with `const` or a string `enum`,
 * through references and through unions whose every member fixes it; undefined otherwise.
 */
function fixedValues(schema: Json, name: string, components: JsonObject): string[] | undefined {
  const node = deref(schema, components);
  const properties = asObject(node.properties);
  if (name in properties) {
    const property = deref(properties[name], components);
    if (!Array.isArray(node.required) || !node.required.includes(name)) return undefined;
    if (typeof property.const === "string") return [property.const];
    const values = property.enum;
    return Array.isArray(values) && values.every((v) => typeof v === "string")
      ? values as string[]
      : undefined;
  }
  const each = membersOf(node)?.map((member) => fixedValues(member, name, components));
  return each?.every((values) => values !== undefined) ? [...new Set(each.flat())] : undefined;
}

/** The property names a schema (or the first member of its union) declares, in order. */
function propertyNames(schema: Json, components: JsonObject): string[] {
  const node = deref(schema, components);
  if (isObject(node.properties)) return Object.keys(node.properties);
  const first = membersOf(node)?.[0];
  return first === undefined ? [] : propertyNames(first, components);
}

/** The first property every member fixes to values of its own, with the member of each value. */
function discriminatorOf(members: Json[], components: JsonObject): JsonObject | undefined {
  const names = members.map(refName);
  if (names.some((n) => n === undefined)) return undefined;
  for (const property of propertyNames(members[0]!, components)) {
    const values = members.map((member) => fixedValues(member, property, components));
    const all = values.flatMap((v) => v ?? []);
    if (values.some((v) => v === undefined) || new Set(all).size !== all.length) continue;
    const mapping = values.flatMap((list, i) =>
      list!.map((value) => [value, `#/components/schemas/${names[i]}`])
    );
    return { propertyName: property, mapping: Object.fromEntries(mapping) };
  }
  return undefined;
}

/** Adds a discriminator to every `oneOf` in `value` that can have one. */
export function withDiscriminators(value: Json, components: JsonObject): Json {
  if (Array.isArray(value)) return value.map((v) => withDiscriminators(v, components));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) out[key] = withDiscriminators(v, components);
  if (Array.isArray(out.oneOf) && out.discriminator === undefined) {
    const discriminator = discriminatorOf(out.oneOf, components);
    if (discriminator) out.discriminator = discriminator;
  }
  return out;
}
