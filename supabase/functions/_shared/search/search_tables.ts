import type { z } from "zod";
import {
  AbilityBlock,
  Ancestry,
  Archetype,
  Background,
  Class,
  ClassArchetype,
  Creature,
  Hazard,
  Item,
  Language,
  Spell,
  Trait,
  VersatileHeritage,
} from "@shared/content.ts";
import type { ContentType } from "@shared/enums.ts";
import type { SearchBucket } from "@shared/search.ts";

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

const base = ["id", "name", "description"] as const;

/** Every content table search reads, in the interface's bucket order. */
export const SEARCH_TABLES: readonly SearchTable[] = [
  {
    bucket: "ability_blocks",
    table: "ability_block",
    type: "ability-block",
    summary: [...base, "level", "type", "traits", "content_source_id"],
    resource: AbilityBlock,
    order: "level",
  },
  {
    bucket: "ancestries",
    table: "ancestry",
    type: "ancestry",
    summary: [...base, "content_source_id"],
    resource: Ancestry,
    order: null,
  },
  {
    bucket: "archetypes",
    table: "archetype",
    type: "archetype",
    summary: [...base, "content_source_id"],
    resource: Archetype,
    order: null,
  },
  {
    bucket: "backgrounds",
    table: "background",
    type: "background",
    summary: [...base, "content_source_id"],
    resource: Background,
    order: null,
  },
  {
    bucket: "classes",
    table: "class",
    type: "class",
    summary: [...base, "content_source_id"],
    resource: Class,
    order: null,
  },
  {
    bucket: "creatures",
    table: "creature",
    type: "creature",
    summary: ["id", "name", "level", "type", "content_source_id"],
    resource: Creature,
    order: "level",
  },
  {
    bucket: "hazards",
    table: "hazard",
    type: null,
    summary: ["id", "name", "level", "type", "content_source_id"],
    resource: Hazard,
    order: "level",
  },
  {
    bucket: "items",
    table: "item",
    type: "item",
    summary: [...base, "level", "traits", "group", "hands", "content_source_id"],
    resource: Item,
    order: "level",
  },
  {
    bucket: "languages",
    table: "language",
    type: "language",
    summary: [...base, "content_source_id"],
    resource: Language,
    order: null,
  },
  {
    bucket: "spells",
    table: "spell",
    type: "spell",
    summary: [...base, "rank", "traits", "traditions", "content_source_id"],
    resource: Spell,
    order: "rank",
  },
  {
    bucket: "traits",
    table: "trait",
    type: "trait",
    summary: [...base, "content_source_id"],
    resource: Trait,
    order: null,
  },
  {
    bucket: "versatile_heritages",
    table: "versatile_heritage",
    type: "versatile-heritage",
    summary: [...base, "content_source_id"],
    resource: VersatileHeritage,
    order: null,
  },
  {
    bucket: "class_archetypes",
    table: "class_archetype",
    type: "class-archetype",
    summary: [...base, "content_source_id"],
    resource: ClassArchetype,
    order: null,
  },
];

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
    `${alias}.content_source_id in (select s.id from public.content_source s
      where s.user_id is null and s.is_published)`;
}
