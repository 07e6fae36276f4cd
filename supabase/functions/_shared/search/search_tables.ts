import type { z } from "zod";
import { CONTENT_TYPE_NAMES, ContentType, contentTypes } from "@shared/content_types.ts";
import { SEARCH_BUCKETS, type SearchBucket, simpleRowOf } from "@shared/search.ts";

/** One content table as search sees it. */
export interface SearchTable {
  bucket: SearchBucket;
  /** Table name in schema `public`. */
  table: string;
  /** The advanced-mode `type` that selects this table; null for hazards (not a search type). */
  type: ContentType | null;
  /** Columns of the trimmed simple-mode row, in order. */
  summary: readonly string[];
  /** The full row: its keys are the columns advanced mode returns. */
  resource: z.ZodObject;
  /** Advanced mode's sort column before `name`: spells by rank, leveled content by level. */
  order: "rank" | "level" | null;
}

/** Every content table search reads, in the interface's bucket order, from the type registry. */
export const SEARCH_TABLES: readonly SearchTable[] = SEARCH_BUCKETS.map((bucket) => {
  const name = CONTENT_TYPE_NAMES.find((n) => contentTypes[n].searchBucket === bucket);
  if (name === undefined) throw new Error(`No content type has the search bucket ${bucket}`);
  const { table, resource } = contentTypes[name];
  const columns = Object.keys(resource.shape);
  const advancedType = ContentType.safeParse(name);
  return {
    bucket,
    table,
    type: advancedType.success ? advancedType.data : null,
    summary: Object.keys(simpleRowOf(bucket).shape),
    resource,
    order: columns.includes("rank") ? "rank" : columns.includes("level") ? "level" : null,
  };
});

/** Quotes an identifier taken from the definitions above (never from a request). */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Collects bound parameters and hands out their `$n::type` placeholders. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Binds a value and returns its placeholder, cast to `type`. */
  bind(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

/**
 * The visibility rule on top of row-level security: the listed sources, or when none are listed the
 * official published ones. Binds its parameter once; the returned function gives the condition for
 * a table alias.
 */
export function visibleSources(
  contentSources: readonly number[] | null | undefined,
  params: SqlParams,
): (alias: string) => string {
  if (contentSources && contentSources.length > 0) {
    const listed = params.bind(contentSources, "bigint[]");
    return (alias) => `${alias}.content_source_id = any(${listed})`;
  }
  return (alias) =>
    `${alias}.content_source_id in (select o.id from private.official_source_ids() o(id))`;
}
