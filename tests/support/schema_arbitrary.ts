/**
 * Values a JSON Schema of the OpenAPI document allows, as fast-check arbitraries: what a client
 * generated from the document may send. Biased to the edges the document states (minimum, maximum,
 * longest string, every enum value and every union member), with every required property present
 * and optional ones now and then, and kept small (arrays of at most 3, strings mostly short) so a
 * body is cheap to send. Lengths count UTF-16 code units, as the document's description says.
 *
 * `hints` let a caller steer values the schema allows towards ones that exist (row ids, user ids).
 */
import fc from "fast-check";

/** A JSON Schema node, read loosely by key. */
// deno-lint-ignore no-explicit-any -- the document is walked by key
export type Schema = any;

/** Where generated values may be steered: a property's name and the schema to fill. */
export interface Hints {
  /** Values to use for a property of this name (when the schema allows them), or undefined. */
  forProperty?(name: string, schema: Schema): fc.Arbitrary<unknown> | undefined;
}

const NUL_FREE = "^[^\\x00]*$";
const NOT_BLANK = "^[^\\x00]*[^\\s\\x00][^\\x00]*$";
/** Deepest nesting of open values ("any JSON") generated. */
const MAX_DEPTH = 6;

/** Builds arbitraries for the schemas of one document. */
export class SchemaArbitraries {
  constructor(
    private readonly components: Record<string, Schema>,
    private readonly hints: Hints = {},
  ) {}

  /** Follows a `$ref`, merging the keywords beside it into the referenced schema. */
  resolve(schema: Schema): Schema {
    let node = schema;
    for (let hops = 0; typeof node?.$ref === "string" && hops < 20; hops++) {
      const { $ref, ...beside } = node;
      const target = this.components[String($ref).split("/").at(-1)!];
      node = Object.keys(beside).length === 0 ? target : merge(target, beside);
    }
    return node;
  }

  of(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
    const node = this.resolve(schema);
    if (node === true || node === undefined) return this.anyJson(depth);
    if (node === false) throw new Error("The schema `false` admits no value");
    if ("const" in node) return fc.constant(node.const);
    if (Array.isArray(node.enum)) return fc.constantFrom(...node.enum);
    // allOf: merged, except further patterns of a string, which `strings` checks itself.
    const mergeable = (node.allOf ?? []).filter((s: Schema) =>
      !(Object.keys(s).length === 1 && "pattern" in s)
    );
    if (mergeable.length > 0) {
      const { allOf, ...rest } = node;
      const patterns = allOf.filter((s: Schema) => !mergeable.includes(s));
      const merged = mergeable.reduce((a: Schema, b: Schema) => merge(a, this.resolve(b)), rest);
      return this.of(patterns.length > 0 ? { ...merged, allOf: patterns } : merged, depth);
    }
    const members = node.oneOf ?? node.anyOf;
    if (Array.isArray(members)) {
      const { oneOf: _o, anyOf: _a, discriminator: _d, ...rest } = node;
      const usable = depth >= MAX_DEPTH
        ? members.filter((m: Schema) => !this.recursive(m))
        : members;
      return fc.oneof(
        ...(usable.length > 0 ? usable : members).map((m: Schema) =>
          this.of(Object.keys(rest).length > 0 ? merge(this.resolve(m), rest) : m, depth + 1)
        ),
      );
    }
    if (Array.isArray(node.type)) {
      return fc.oneof(...node.type.map((t: string) => this.of({ ...node, type: t }, depth)));
    }
    switch (node.type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return integers(node);
      case "number":
        return numbers(node);
      case "string":
        return strings(node);
      case "array":
        return fc.array(this.of(node.items ?? {}, depth + 1), {
          minLength: node.minItems ?? 0,
          maxLength: Math.max(node.minItems ?? 0, Math.min(node.maxItems ?? 3, 3)),
        });
      case "object":
        return this.object(node, depth);
      default:
        if (node.properties || node.additionalProperties) return this.object(node, depth);
        return this.anyJson(depth);
    }
  }

  /** Whether a union member leads back into an open value (`JsonValue`'s arrays and objects). */
  private recursive(member: Schema): boolean {
    const node = this.resolve(member);
    return node?.type === "array" || node?.type === "object";
  }

  private anyJson(depth: number): fc.Arbitrary<unknown> {
    return fc.jsonValue({ maxDepth: Math.max(0, 2 - Math.floor(depth / 3)) }).map(withoutNul);
  }

  private object(node: Schema, depth: number): fc.Arbitrary<unknown> {
    const properties: Record<string, Schema> = node.properties ?? {};
    const required = new Set<string>(node.required ?? []);
    const shape: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, schema] of Object.entries(properties)) {
      shape[name] = this.hints.forProperty?.(name, this.resolve(schema)) ??
        this.of(schema, depth + 1);
    }
    const optional = Object.keys(shape).filter((k) => !required.has(k));
    const minProperties = Math.max(node.minProperties ?? 0, 0);
    const declared = fc.record(shape, { requiredKeys: [...required].filter((k) => k in shape) })
      .chain((value) => {
        // minProperties: give as many optional fields as it takes.
        const missing = minProperties - Object.keys(value as object).length;
        if (missing <= 0 || optional.length === 0) return fc.constant(value);
        return fc.shuffledSubarray(optional, { minLength: missing, maxLength: missing }).chain(
          (keys) =>
            fc.record(Object.fromEntries(keys.map((k) => [k, shape[k]!]))).map((more) => ({
              ...(value as object),
              ...(more as object),
            })),
        );
      });
    const extra = node.additionalProperties;
    if (extra === false || depth >= MAX_DEPTH) return declared;
    // Open objects: a few more keys, never one the schema names (its rules would not apply).
    const values = extra === undefined || extra === true ? this.anyJson(depth) : this.of(
      extra,
      depth + 1,
    );
    const keys = strings({ ...(node.propertyNames ?? {}), type: "string", maxLength: 12 })
      .filter((k) => !(k in properties) && k !== "__proto__");
    const open = Object.keys(properties).length === 0;
    const more = fc.dictionary(keys, values, { maxKeys: open ? 3 : 1 });
    return fc.tuple(declared, open ? more : fc.option(more, { freq: 4 })).map(([a, b]) => ({
      ...(b ?? {}),
      ...(a as object),
    }));
  }
}

/** Two schemas that must both hold, for the keywords this generator reads. */
function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (a?.required || b?.required) {
    out.required = [...new Set([...(a?.required ?? []), ...(b?.required ?? [])])];
  }
  if (a?.properties && b?.properties) out.properties = { ...a.properties, ...b.properties };
  if (a?.minProperties !== undefined && b?.minProperties !== undefined) {
    out.minProperties = Math.max(a.minProperties, b.minProperties);
  }
  if (a?.pattern !== undefined && b?.pattern !== undefined && a.pattern !== b.pattern) {
    out.allOf = [...(a.allOf ?? []), ...(b.allOf ?? []), { pattern: b.pattern }];
    out.pattern = a.pattern;
  }
  return out;
}

function withoutNul(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("\0", "_");
  if (Array.isArray(value)) return value.map(withoutNul);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k.replaceAll("\0", "_"), withoutNul(v)]),
    );
  }
  return value;
}

function integers(node: Schema): fc.Arbitrary<number> {
  const low = node.minimum ??
    (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : -(2 ** 53) + 1);
  const high = node.maximum ??
    (node.exclusiveMaximum !== undefined ? node.exclusiveMaximum - 1 : 2 ** 53 - 1);
  const smallLow = Math.max(low, -1000);
  const smallHigh = Math.min(high, 1000);
  const edges = fc.constantFrom(low, high);
  return smallLow <= smallHigh
    ? fc.oneof(edges, fc.integer({ min: smallLow, max: smallHigh }))
    : fc.oneof(edges, fc.integer({ min: low, max: high }));
}

function numbers(node: Schema): fc.Arbitrary<number> {
  const min = node.minimum ?? -1e300;
  const max = node.maximum ?? 1e300;
  return fc.oneof(
    fc.constantFrom(min, max),
    fc.double({ noNaN: true, noDefaultInfinity: true, min, max }),
  ).filter((n) => !Object.is(n, -0));
}

/** Strings a string schema allows: its pattern, lengths and NUL rule. */
export function strings(node: Schema): fc.Arbitrary<string> {
  const min: number = node.minLength ?? 0;
  const max: number = node.maxLength ?? 10_000;
  const patterns: string[] = [
    ...(node.pattern !== undefined ? [node.pattern] : []),
    ...(node.allOf ?? []).map((s: Schema) => s.pattern).filter((p: unknown) => p !== undefined),
  ];
  const own = patterns.filter((p) => p !== NUL_FREE && p !== NOT_BLANK);
  const notBlank = patterns.includes(NOT_BLANK);
  const fits = (s: string) =>
    s.length >= min && s.length <= max && !s.includes("\0") &&
    own.every((p) => new RegExp(p, "u").test(s)) && (!notBlank || s.trim().length > 0);
  let base: fc.Arbitrary<string>;
  if (node.format === "uri") {
    base = fc.webUrl({ validSchemes: ["http", "https"] });
  } else if (own.length > 0) {
    base = fc.stringMatching(new RegExp(own[0]!, "u"), { maxLength: Math.min(max, 400) });
  } else {
    const short = Math.max(min, Math.min(max, 24));
    base = fc.oneof(
      { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: short }) },
      {
        weight: 2,
        arbitrary: fc.string({ unit: "grapheme", minLength: min, maxLength: short }).map((s) =>
          withinUnits(s, max)
        ),
      },
      { weight: 1, arbitrary: fc.constant("x".repeat(Math.min(max, 2_000))) },
      { weight: 1, arbitrary: fc.constantFrom(" padded ", "’", "it’s", "\u00e9", "𝔘") },
    ).map((s) => (notBlank && s.trim().length === 0 ? `${s}x`.slice(-Math.max(1, max)) : s))
      .map((s) => s.replaceAll("\0", "_"));
  }
  return base.filter(fits);
}

/** The longest start of `text` of at most `max` UTF-16 code units that splits no character. */
function withinUnits(text: string, max: number): string {
  let out = "";
  for (const character of text) {
    if (out.length + character.length > max) break;
    out += character;
  }
  return out;
}
