/**
 * Discriminators: a `oneOf` of named object schemas that each fix a required property to their
 * own constant values (JSend's `status`, a proposal's `type` and `action`, an upload's `type`) gets
 * `discriminator: { propertyName, mapping }`, so client generators pick the member by that value.
 */
import { asObject, deref, isObject, type Json, type JsonObject, refName } from "./json.ts";

/**
 * The values a schema allows for a required property it fixes with `const` or a string `enum`,
 * through references and through unions whose every member fixes it; undefined otherwise.
 */
function fixedValues(schema: Json, name: string, components: JsonObject): string[] | undefined {
  const node = deref(schema, components);
  const properties = asObject(node.properties);
  if (name in properties) {
    const required = Array.isArray(node.required) && node.required.includes(name);
    const property = deref(properties[name], components);
    if (!required) return undefined;
    if (typeof property.const === "string") return [property.const];
    const values = property.enum;
    if (Array.isArray(values) && values.every((v) => typeof v === "string")) {
      return values as string[];
    }
    return undefined;
  }
  const members = node.oneOf ?? node.anyOf;
  if (!Array.isArray(members) || members.length === 0) return undefined;
  const all = new Set<string>();
  for (const member of members) {
    const values = fixedValues(member, name, components);
    if (values === undefined) return undefined;
    values.forEach((v) => all.add(v));
  }
  return [...all];
}

/** The property names a schema (or the first member of its union) declares, in order. */
function propertyNames(schema: Json, components: JsonObject): string[] {
  const node = deref(schema, components);
  if (isObject(node.properties)) return Object.keys(node.properties);
  const members = node.oneOf ?? node.anyOf;
  return Array.isArray(members) && members.length > 0 ? propertyNames(members[0]!, components) : [];
}

function discriminatorOf(members: Json[], components: JsonObject): JsonObject | undefined {
  const names = members.map(refName);
  if (names.some((n) => n === undefined)) return undefined;
  for (const property of propertyNames(members[0]!, components)) {
    const mapping: JsonObject = {};
    let distinct = true;
    for (const [i, member] of members.entries()) {
      const values = fixedValues(member, property, components);
      if (values === undefined) {
        distinct = false;
        break;
      }
      for (const value of values) {
        if (value in mapping) distinct = false;
        mapping[value] = `#/components/schemas/${names[i]}`;
      }
    }
    if (distinct) return { propertyName: property, mapping };
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
