import type { z } from "zod";
import type { ContentTypeContract, NameMatch } from "@shared/content/content_type.ts";
import type { ContentTypeName } from "@shared/content_type_names.ts";
/** How an extra find filter matches its column. */
export interface ExtraFilter {
  column: string;
  /**
   * `equals`: the column equals the value; `equals_text`: the column read as text equals it (enum
   * columns); `contains_all`: the array column holds every value; `is_null`: true asks for a null
   * column, false asks nothing (both count as present for `liftsDefault`).
   */
  match: "equals" | "equals_text" | "contains_all" | "is_null";
  /** Postgres type of the value (for arrays, of the array). */
  type: string;
  /** When present, the default restriction to official sources does not apply. */
  liftsDefault?: boolean;
}

/**
 * One content type as the generic find and save see it: its table, the columns its resource has
 * (taken from the shared registry, so the two cannot drift apart) and its extra filters.
 */
export interface ContentTable<S extends z.ZodObject = z.ZodObject> {
  /** Table name in schema `public`. */
  table: string;
  /** How messages name one row: "spell", "class archetype". */
  label: string;
  /** The resource schema; its keys are the returned columns, in order. */
  resource: S;
  /** The column that places a row in a source: `content_source_id`, or `id` for sources. */
  sourceColumn: "content_source_id" | "id";
  /** Find filters beyond `id`, `name` and `content_sources`, by body key. */
  filters: Readonly<Record<string, ExtraFilter>>;
  /** How a find matches `name`. */
  nameMatch: NameMatch;
  /** Columns read through an expression over alias `t` instead of directly. */
  computed?: Readonly<Record<string, string>>;
}

/** What only the server knows of a content type: SQL column names and expressions. */
interface ServerSide {
  sourceColumn?: "content_source_id" | "id";
  filters?: Readonly<Record<string, ExtraFilter>>;
  computed?: Readonly<Record<string, string>>;
}

const traits: Record<string, ExtraFilter> = {
  traits: { column: "traits", match: "contains_all", type: "bigint[]" },
};

// The admin tools' `rarity` and `level` filters, on the types that have those columns.
const rarity: Record<string, ExtraFilter> = {
  rarity: { column: "rarity", match: "equals_text", type: "text" },
};
const rarityAndLevel: Record<string, ExtraFilter> = {
  ...rarity,
  level: { column: "level", match: "equals", type: "integer" },
};

/** The server side of each content type; the rest of each entry is `shared/content_types.ts`. */
const serverSide: Record<ContentTypeName, ServerSide> = {
  // `keys` reaches only those who may write the source; `foundry_id` is the reference's name.
  "content-source": {
    sourceColumn: "id",
    filters: {
      user_id: { column: "user_id", match: "equals", type: "uuid", liftsDefault: true },
      official: { column: "user_id", match: "is_null", type: "boolean", liftsDefault: true },
      published: { column: "is_published", match: "equals", type: "boolean", liftsDefault: true },
      group: { column: "group", match: "equals", type: "text" },
      external_id: { column: "external_id", match: "equals", type: "text" },
    },
    computed: {
      keys: "select k.keys from private.my_source_keys() k where k.content_source_id = t.id",
      foundry_id: "t.external_id",
    },
  },
  "trait": {},
  // No `traits` filter on items, as the reference has it.
  "item": {
    filters: { ...rarityAndLevel, group: { column: "group", match: "equals_text", type: "text" } },
  },
  "spell": { filters: { ...traits, ...rarity } },
  "class": { filters: rarity },
  "class-archetype": {
    filters: { ...rarity, class_id: { column: "class_id", match: "equals", type: "bigint" } },
  },
  "ability-block": {
    filters: {
      ...traits,
      ...rarityAndLevel,
      type: { column: "type", match: "equals", type: "public.ability_block_type" },
      prerequisites: { column: "prerequisites", match: "contains_all", type: "text[]" },
    },
  },
  "versatile-heritage": {
    filters: { ...rarity, heritage_id: { column: "heritage_id", match: "equals", type: "bigint" } },
  },
  "language": { filters: rarity },
  "ancestry": { filters: rarity },
  "archetype": {
    filters: {
      ...rarity,
      dedication_feat_id: { column: "dedication_feat_id", match: "equals", type: "bigint" },
    },
  },
  "background": { filters: rarity },
  "creature": { filters: rarityAndLevel },
  "hazard": { filters: rarityAndLevel },
};

/** A content type as find and save see it: its registry entry and its server side. */
export function contentTable<T extends ContentTypeContract>(type: T): ContentTable<T["resource"]> {
  const { sourceColumn = "content_source_id", filters = {}, computed } = serverSide[type.name];
  return {
    table: type.table,
    label: type.label,
    resource: type.resource,
    sourceColumn,
    filters,
    nameMatch: type.nameMatch,
    ...(computed ? { computed } : {}),
  };
}
