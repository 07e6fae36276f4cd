/**
 * Request bodies whose rules the zod conversion cannot show, described from the same contract
 * facts: create-or-update bodies as an insert and an update variant (what an insert needs, which
 * fields the server manages), create-content-update as one variant per content type and action, and
 * upload-public-file as one variant per image format.
 */
import { CONTENT_TYPE_NAMES, ContentType, contentTypes } from "@shared/content_types.ts";
import { proposalFields } from "@shared/content_updates.ts";
import {
  asObject,
  ID_SCHEMA,
  isObject,
  type Json,
  JSON_VALUE,
  type JsonObject,
  NEW_ID_SCHEMA,
  NULL_AS_ABSENT,
} from "@shared/json_schema.ts";
import { UPLOAD_DATA_PATTERNS, UploadType } from "@shared/uploads.ts";
import { deref, pascal, ref } from "./json.ts";

/** Keys a fetched record carries that the server manages: accepted in a save body and ignored. */
const SERVER_MANAGED = ["created_at", "updated_at", "user_id"];

/** What the body builders read and add to. */
export interface BodyContext {
  components: JsonObject;
  /** The input schema of each content type's create-<type> body, by type. */
  saveBodies: ReadonlyMap<string, Json>;
}

/** A schema without the `null` that means "left out" (a required field must be given). */
function withoutNullAsAbsent(schema: Json | undefined): Json {
  const node = asObject(schema);
  const list = node.anyOf;
  if (!Array.isArray(list)) return node;
  const kept = list.filter((s) => asObject(s).description !== NULL_AS_ABSENT);
  if (kept.length === list.length) return node;
  const { anyOf: _, ...rest } = node;
  if (kept.length === 1) return { ...asObject(kept[0]), ...rest };
  return { ...rest, anyOf: kept };
}

/** Adds a component, refusing to replace a different one of the same name. */
function addComponent(ctx: BodyContext, name: string, schema: JsonObject): JsonObject {
  const known = ctx.components[name];
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(schema)) {
    throw new Error(`Two different schemas would be the component ${name}`);
  }
  ctx.components[name] = schema;
  return ref(name);
}

function objectOf(schema: Json, ctx: BodyContext, what: string): JsonObject {
  const node = deref(schema, ctx.components);
  if (!isObject(node.properties)) throw new Error(`${what} is not an object schema`);
  return node;
}

/**
 * A create-or-update body as two variants: `<Base>Insert` (`id` left out, null, 0 or -1; the fields
 * an insert needs required and not null) and `<Base>Update` (`id` a row id; every field optional).
 * The server-managed keys a fetched record carries are marked read-only; a content record never
 * moves to another source, so its update ignores `content_source_id`.
 */
export function createOrUpdateBody(
  operation: string,
  body: Json,
  requires: readonly string[],
  ctx: BodyContext,
): Json {
  const type = CONTENT_TYPE_NAMES.find((t) => operation === `create-${t}`);
  const fixedOnUpdate = type !== undefined && type !== "content-source" &&
      "content_source_id" in contentTypes[type].resource.shape
    ? ["content_source_id"]
    : [];
  const base = pascal(operation.replace(/^create-/, ""));
  const source = objectOf(body, ctx, operation);
  const properties: JsonObject = { ...asObject(source.properties) };
  for (const key of SERVER_MANAGED) {
    if (key in properties) {
      properties[key] = {
        ...asObject(properties[key]),
        readOnly: true,
        description: "Managed by the server: a fetched record's value may be sent back, and is " +
          "ignored",
      };
    }
  }
  const { required: _required, description: _description, ...shape } = source;
  const insertProperties: JsonObject = { ...properties, id: NEW_ID_SCHEMA };
  for (const key of requires) {
    if (!(key in insertProperties)) throw new Error(`${operation} has no field ${key}`);
    insertProperties[key] = withoutNullAsAbsent(insertProperties[key]);
  }
  const insert = addComponent(ctx, `${base}Insert`, {
    ...shape,
    description: requires.length > 0
      ? `A new record: needs ${requires.map((k) => `\`${k}\``).join(", ")}`
      : "A new record: every field left out takes its default",
    properties: insertProperties,
    ...(requires.length > 0 ? { required: [...requires] } : {}),
  });
  const update = addComponent(ctx, `${base}Update`, {
    ...shape,
    description: "Changes the record `id` names: only the fields given (null clears a field " +
      "that can be empty, and is ignored for one that cannot)",
    properties: {
      ...properties,
      ...Object.fromEntries(
        fixedOnUpdate.filter((key) => key in properties).map((key) => [key, {
          ...asObject(properties[key]),
          description: "Ignored when changing a record: it stays where it was made",
        }]),
      ),
      id: { ...ID_SCHEMA, description: "The record to change" },
    },
    required: ["id"],
  });
  return { oneOf: [insert, update] };
}

/**
 * create-content-update: one variant per content type (`type`), each one per action: a CREATE
 * carries the fields a new record needs, an UPDATE at least one field and `ref_id`, a DELETE
 * `ref_id`. A content source can only be updated.
 */
export function contentUpdateBody(body: Json, ctx: BodyContext): Json {
  const source = objectOf(body, ctx, "create-content-update");
  const common = asObject(source.properties);
  const variants: JsonObject[] = [];
  for (const type of ContentType.options) {
    const save = objectOf(ctx.saveBodies.get(type) ?? null, ctx, `create-${type}`);
    const saveProperties = asObject(save.properties);
    const fields: JsonObject = {};
    for (const key of proposalFields(type)) {
      if (!(key in saveProperties)) throw new Error(`create-${type} has no field ${key}`);
      fields[key] = withoutNullAsAbsent(saveProperties[key]);
    }
    const name = pascal(type);
    const data = addComponent(ctx, `Proposed${name}`, {
      type: "object",
      description: `The fields of ${type === "ability-block" ? "an" : "a"} ${type} a proposal ` +
        "sets, as its create body takes them; a fetched record's own keys are accepted and " +
        "dropped",
      properties: { ...fields, ...fetchedKeys() },
      additionalProperties: false,
    });
    // "At least one field": one the proposal sets, not a fetched record's key it drops.
    const changesSomething = { anyOf: Object.keys(fields).map((key) => ({ required: [key] })) };
    const proposal = (action: string, extra: JsonObject, required: string[]): JsonObject => ({
      type: "object",
      ...(source.propertyNames !== undefined ? { propertyNames: source.propertyNames } : {}),
      properties: {
        ...common,
        type: { type: "string", const: type },
        action: { type: "string", const: action },
        data: { ...data, ...extra },
      },
      required: ["type", "action", "data", "content_source_id", ...required],
    });
    const needs = contentTypes[type].createRequires.filter((k) => k !== "content_source_id");
    const update = proposal("UPDATE", changesSomething, ["ref_id"]);
    if (type === "content-source") {
      variants.push(addComponent(ctx, `${name}Proposal`, {
        ...update,
        description: "A content source can only be updated, with `ref_id` equal to " +
          "`content_source_id`",
      }));
      continue;
    }
    const actions = [
      addComponent(ctx, `${name}CreateProposal`, {
        ...proposal("CREATE", needs.length > 0 ? { required: needs } : {}, []),
        description: "Proposes a new record: `data` holds the fields a new record needs",
      }),
      addComponent(ctx, `${name}UpdateProposal`, {
        ...update,
        description: "Proposes a change to the record `ref_id`: `data` sets at least one field",
      }),
      addComponent(ctx, `${name}DeleteProposal`, {
        ...proposal("DELETE", {}, ["ref_id"]),
        description: "Proposes deleting the record `ref_id`",
      }),
    ];
    variants.push(addComponent(ctx, `${name}Proposal`, { oneOf: actions }));
  }
  return { oneOf: variants };
}

/**
 * Keys of a fetched record that a proposal's `data` may carry and the server drops: its
 * timestamps and owner, and its id and source while they repeat the proposal's own.
 */
function fetchedKeys(): JsonObject {
  const dropped = (description: string, schema: JsonObject): JsonObject => ({
    ...schema,
    readOnly: true,
    description: `${description}; dropped`,
  });
  return {
    id: dropped("A fetched record's id: the proposal's `ref_id`, or 0, -1 or null", {
      anyOf: [ID_SCHEMA, { enum: [0, -1, null] }],
    }),
    content_source_id: dropped(
      "A fetched record's source: the proposal's `content_source_id`",
      ID_SCHEMA,
    ),
    created_at: dropped("A fetched record's time", ref(JSON_VALUE)),
    updated_at: dropped("A fetched record's time", ref(JSON_VALUE)),
    user_id: dropped("A fetched record's owner", ref(JSON_VALUE)),
  };
}

/** upload-public-file: one variant per format, its `data` starting with that format's bytes. */
export function uploadBody(body: Json, ctx: BodyContext): Json {
  const source = objectOf(body, ctx, "upload-public-file");
  const properties = asObject(source.properties);
  const formats = new Map<"png" | "jpeg" | "webp", string[]>();
  for (const type of UploadType.options) {
    const format = type === "jpg" ? "jpeg" : type;
    formats.set(format, [...formats.get(format) ?? [], type]);
  }
  const variants = [...formats].map(([format, types]) =>
    addComponent(ctx, `Upload${pascal(format)}`, {
      ...source,
      description: `${format.toUpperCase()} image` +
        (types.length > 1 ? ` (\`type\` ${types.map((t) => `\`${t}\``).join(" or ")})` : ""),
      properties: {
        ...properties,
        data: {
          ...asObject(properties.data),
          description: "The file as standard base64 with padding (no `data:` prefix), at most " +
            "2 MiB decoded",
          pattern: UPLOAD_DATA_PATTERNS[format],
        },
        type: types.length === 1
          ? { type: "string", const: types[0]! }
          : { type: "string", enum: types },
      },
    })
  );
  return { oneOf: variants };
}
