import { contentTypes } from "@shared/content_types.ts";
import { SimilarityType } from "@shared/similarity.ts";

/** Metadata columns a `where` filter may name besides `_type`, `id` and `content_source_id`. */
export type FilterColumn = "rarity" | "level" | "rank";

/** How one content type is searched. */
export interface SimilarityTable {
  /** The table in schema public. */
  table: string;
  /** Which optional filter columns the table has. */
  columns: ReadonlySet<FilterColumn>;
}

const FILTER_COLUMNS: readonly FilterColumn[] = ["rarity", "level", "rank"];

/**
 * Every searchable content type and its table, from the type registry: a filter column is there
 * when the type's resource has it. Table names are fixed there, never taken from input.
 */
export const similarityTables: Readonly<Record<SimilarityType, SimilarityTable>> =
  bySimilarityType();

function bySimilarityType(): Record<SimilarityType, SimilarityTable> {
  const tables: Partial<Record<SimilarityType, SimilarityTable>> = {};
  for (const type of SimilarityType.options) {
    const { table, resource } = contentTypes[type];
    const columns = FILTER_COLUMNS.filter((column) => column in resource.shape);
    tables[type] = { table, columns: new Set(columns) };
  }
  // The loop filled every option of SimilarityType.
  return tables as Record<SimilarityType, SimilarityTable>;
}
