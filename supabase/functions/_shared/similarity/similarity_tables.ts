import type { SimilarityType } from "@shared/similarity.ts";

/** Metadata columns a `where` filter may name besides `_type`, `id` and `content_source_id`. */
export type FilterColumn = "rarity" | "level" | "rank";

/** How one content type is searched. */
export interface SimilarityTable {
  /** The table in schema public. */
  table: string;
  /**
   * The `content` document, exactly as the GIN index of 20261122171000_add_similarity_indexes.sql
   * defines it (the planner matches the expression, so the two must not drift).
   */
  document: string;
  /** Which optional filter columns the table has. */
  columns: ReadonlySet<FilterColumn>;
}

const NAME_AND_DESCRIPTION = "to_tsvector('english'::regconfig, name || ' ' || description)";
const NAME_AND_DETAILS =
  "to_tsvector('english'::regconfig, name || ' ' || coalesce(details ->> 'description', ''))";

function entry(table: string, document: string, columns: FilterColumn[]): SimilarityTable {
  return { table, document, columns: new Set(columns) };
}

/** Every searchable content type and its table. Table names are fixed here, never taken from input. */
export const similarityTables: Readonly<Record<SimilarityType, SimilarityTable>> = {
  "trait": entry("trait", NAME_AND_DESCRIPTION, []),
  "item": entry("item", NAME_AND_DESCRIPTION, ["rarity", "level"]),
  "spell": entry("spell", NAME_AND_DESCRIPTION, ["rarity", "rank"]),
  "class": entry("class", NAME_AND_DESCRIPTION, ["rarity"]),
  "archetype": entry("archetype", NAME_AND_DESCRIPTION, ["rarity"]),
  "versatile-heritage": entry("versatile_heritage", NAME_AND_DESCRIPTION, ["rarity"]),
  "class-archetype": entry("class_archetype", NAME_AND_DESCRIPTION, ["rarity"]),
  "ability-block": entry("ability_block", NAME_AND_DESCRIPTION, ["rarity", "level"]),
  "creature": entry("creature", NAME_AND_DETAILS, ["rarity", "level"]),
  "hazard": entry("hazard", NAME_AND_DETAILS, ["rarity", "level"]),
  "ancestry": entry("ancestry", NAME_AND_DESCRIPTION, ["rarity"]),
  "background": entry("background", NAME_AND_DESCRIPTION, ["rarity"]),
  "language": entry("language", NAME_AND_DESCRIPTION, ["rarity"]),
};
