import type { z } from "zod";
import {
  AbilityBlock,
  Ancestry,
  Archetype,
  Background,
  Class,
  ClassArchetype,
  ContentSource,
  Creature,
  Hazard,
  Item,
  Language,
  Spell,
  Trait,
  VersatileHeritage,
} from "@shared/content.ts";

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
 * (taken from the shared schema, so the two cannot drift apart) and its extra filters.
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
  /** Columns read through an expression over alias `t` instead of directly. */
  computed?: Readonly<Record<string, string>>;
}

function define<S extends z.ZodObject>(
  table: Omit<ContentTable<S>, "filters" | "sourceColumn"> & Partial<ContentTable<S>>,
): ContentTable<S> {
  return { filters: {}, sourceColumn: "content_source_id", ...table };
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

/** Content sources; `keys` reaches only those who may write the source. */
export const contentSourceTable = define({
  table: "content_source",
  label: "content source",
  resource: ContentSource,
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
});

/** Traits. */
export const traitTable = define({ table: "trait", label: "trait", resource: Trait });

/** Items (no `traits` filter, as the reference has it). */
export const itemTable = define({
  table: "item",
  label: "item",
  resource: Item,
  filters: { ...rarityAndLevel, group: { column: "group", match: "equals_text", type: "text" } },
});

/** Spells. */
export const spellTable = define({
  table: "spell",
  label: "spell",
  resource: Spell,
  filters: { ...traits, ...rarity },
});

/** Classes. */
export const classTable = define({
  table: "class",
  label: "class",
  resource: Class,
  filters: rarity,
});

/** Class archetypes, filterable by class. */
export const classArchetypeTable = define({
  table: "class_archetype",
  label: "class archetype",
  resource: ClassArchetype,
  filters: { ...rarity, class_id: { column: "class_id", match: "equals", type: "bigint" } },
});

/** Ability blocks, filterable by type, traits and prerequisites. */
export const abilityBlockTable = define({
  table: "ability_block",
  label: "ability block",
  resource: AbilityBlock,
  filters: {
    ...traits,
    ...rarityAndLevel,
    type: { column: "type", match: "equals", type: "public.ability_block_type" },
    prerequisites: { column: "prerequisites", match: "contains_all", type: "text[]" },
  },
});

/** Versatile heritages, filterable by heritage. */
export const versatileHeritageTable = define({
  table: "versatile_heritage",
  label: "versatile heritage",
  resource: VersatileHeritage,
  filters: { ...rarity, heritage_id: { column: "heritage_id", match: "equals", type: "bigint" } },
});

/** Languages. */
export const languageTable = define({
  table: "language",
  label: "language",
  resource: Language,
  filters: rarity,
});

/** Ancestries. */
export const ancestryTable = define({
  table: "ancestry",
  label: "ancestry",
  resource: Ancestry,
  filters: rarity,
});

/** Archetypes. */
export const archetypeTable = define({
  table: "archetype",
  label: "archetype",
  resource: Archetype,
  filters: {
    ...rarity,
    dedication_feat_id: { column: "dedication_feat_id", match: "equals", type: "bigint" },
  },
});

/** Backgrounds. */
export const backgroundTable = define({
  table: "background",
  label: "background",
  resource: Background,
  filters: rarity,
});

/** Creatures. */
export const creatureTable = define({
  table: "creature",
  label: "creature",
  resource: Creature,
  filters: rarityAndLevel,
});

/** Hazards. */
export const hazardTable = define({
  table: "hazard",
  label: "hazard",
  resource: Hazard,
  filters: rarityAndLevel,
});
