import type { SimilarityType } from "@shared/similarity.ts";

/** Metadata columns a `where` filter may name besides `_type`, `id` and `content_source_id`. */
export type FilterColumn = "rarity" | "level" | "rank";

/** How one content type is searched. */
export interface SimilarityTable {
  /** The table in schema public. */
  table: string;
  /** Which optional filter columns the table has. */
  columns: ReadonlySet<FilterColumn>;
}

function entry(table: string, columns: FilterColumn[]): SimilarityTable {
  return { table, columns: new Set(columns) };
}

/** Every searchable content type and its table. Table names are fixed here, never taken from input. */
export const similarityTables: Readonly<Record<SimilarityType, SimilarityTable>> = {
  "trait": entry("trait", []),
  "item": entry("item", ["rarity", "level"]),
  "spell": entry("spell", ["rarity", "rank"]),
  "class": entry("class", ["rarity"]),
  "archetype": entry("archetype", ["rarity"]),
  "versatile-heritage": entry("versatile_heritage", ["rarity"]),
  "class-archetype": entry("class_archetype", ["rarity"]),
  "ability-block": entry("ability_block", ["rarity", "level"]),
  "creature": entry("creature", ["rarity", "level"]),
  "hazard": entry("hazard", ["rarity", "level"]),
  "ancestry": entry("ancestry", ["rarity"]),
  "background": entry("background", ["rarity"]),
  "language": entry("language", ["rarity"]),
};
