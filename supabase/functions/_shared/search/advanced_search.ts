import type { z } from "zod";
import {
  ADVANCED_LIMIT,
  type SearchDataAdvancedResult,
  type SearchDataBody,
} from "@shared/search.ts";
import type { Tx } from "../db/pool.ts";
import { parseContainsFilter } from "./query_syntax.ts";
import { emptyResult } from "./simple_search.ts";
import {
  ident,
  SEARCH_TABLES,
  type SearchTable,
  SqlParams,
  visibleSources,
} from "./search_tables.ts";

type AdvancedResult = z.input<typeof SearchDataAdvancedResult>;

type TextKey =
  | "name"
  | "description"
  | "cost"
  | "trigger"
  | "requirements"
  | "frequency"
  | "access"
  | "special"
  | "range"
  | "area"
  | "targets"
  | "duration"
  | "defense"
  | "usage"
  | "craft_requirements";

// A filter applies to the tables whose resource (in the content type registry) has its column;
// the rest ignore it.

/** Text filters (contains-match syntax), each on the column of the same name. */
const TEXT_FILTERS: readonly TextKey[] = [
  "name",
  "description",
  "cost",
  "trigger",
  "requirements",
  "frequency",
  "access",
  "special",
  "range",
  "area",
  "targets",
  "duration",
  "defense",
  "usage",
  "craft_requirements",
];

type EqualsKey =
  | "rarity"
  | "availability"
  | "size"
  | "group"
  | "actions"
  | "ab_type"
  | "cast"
  | "bulk"
  | "hands";

/**
 * Filters the column must equal, with the column and its type; `table` when the column name alone
 * does not say which tables it means.
 */
const EQUALS_FILTERS: Readonly<
  Record<EqualsKey, { column: string; type: string; table?: string }>
> = {
  rarity: { column: "rarity", type: "public.rarity" },
  availability: { column: "availability", type: "public.availability" },
  size: { column: "size", type: "public.item_size" },
  group: { column: "group", type: "public.item_group" },
  actions: { column: "actions", type: "public.ability_block_actions" },
  ab_type: { column: "type", type: "public.ability_block_type", table: "ability_block" },
  cast: { column: "cast", type: "text" },
  bulk: { column: "bulk", type: "text" },
  hands: { column: "hands", type: "text" },
};

type ArrayKey = "traits" | "prerequisites" | "traditions";

/** Array filters: `@>` (the row has every value) or `&&` (the row has at least one). */
const ARRAY_FILTERS: Readonly<Record<ArrayKey, { operator: "@>" | "&&"; type: string }>> = {
  traits: { operator: "@>", type: "bigint[]" },
  prerequisites: { operator: "@>", type: "text[]" },
  traditions: { operator: "&&", type: "text[]" },
};

/** Inclusive bounds on a column. */
const RANGE_FILTERS = [
  { min: "level_min", max: "level_max", column: "level" },
  { min: "rank_min", max: "rank_max", column: "rank" },
] as const;

// Spell kinds (section 9): focus = the Focus trait (found by name: ids differ between databases)
// or a set `meta_data.focus`, unless `meta_data.focus` is false; ritual = a set
// `meta_data.ritual` that is not false; normal = neither.
const FOCUS_VALUE = "t.meta_data -> 'focus'";
const IS_FOCUS = `(
  coalesce(${FOCUS_VALUE}, 'null'::jsonb) not in ('null'::jsonb, 'false'::jsonb)
  or (
    coalesce(${FOCUS_VALUE}, 'null'::jsonb) <> 'false'::jsonb
    and t.traits && array(select ft.id from public.trait ft where lower(ft.name) = 'focus')
  )
)`;
const IS_RITUAL =
  `coalesce(t.meta_data -> 'ritual', 'null'::jsonb) not in ('null'::jsonb, 'false'::jsonb)`;
const SPELL_KINDS = {
  FOCUS: IS_FOCUS,
  RITUAL: IS_RITUAL,
  NORMAL: `not ${IS_FOCUS} and not ${IS_RITUAL}`,
} as const;

/**
 * The conditions of one text filter on one column. The wanted patterns are matched by
 * private.search_matching_ids, which can use the column's trigram index (row-level security keeps
 * a direct ILIKE from using it) and returns ids of readable rows only; the rows are then read by id
 * as the caller. Exclusions are checked on the rows read.
 */
function containsConditions(
  table: SearchTable,
  column: string,
  text: string,
  params: SqlParams,
  sources: readonly number[] | null | undefined,
): string[] {
  const filter = parseContainsFilter(text);
  if (!filter) return [];
  const conditions: string[] = [];
  const ref = `t.${ident(column)}`;
  if (filter.all.length > 0 || filter.any.length > 0) {
    // In FROM, the function runs once per statement however the planner joins it.
    // It looks only at the sources searched (null: the official ones, as `visibleSources`).
    const searched = sources && sources.length > 0 ? sources : null;
    conditions.push(`t.id in (select m.id from private.search_matching_ids(
      ${params.bind(table.table, "text")}, ${params.bind(column, "text")},
      ${params.bind(filter.all, "text[]")}, ${params.bind(filter.any, "text[]")},
      ${params.bind(searched, "bigint[]")}) m(id))`);
  }
  // A null column contains nothing, so an exclusion keeps it.
  for (const p of filter.none) {
    conditions.push(`not coalesce(${ref} ilike ${params.bind(p, "text")}, false)`);
  }
  return conditions;
}

function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

/** Every condition the body sets that applies to the table; the rest are ignored. */
function conditionsFor(
  table: SearchTable,
  body: SearchDataBody,
  params: SqlParams,
): string[] {
  const has = (column: string) => column in table.resource.shape;
  const where = [visibleSources(body.content_sources, params)("t")];
  for (const key of TEXT_FILTERS) {
    const value = body[key];
    if (present(value) && has(key)) {
      where.push(...containsConditions(table, key, value, params, body.content_sources));
    }
  }
  for (
    const [key, filter] of Object.entries(EQUALS_FILTERS) as [
      EqualsKey,
      typeof EQUALS_FILTERS[EqualsKey],
    ][]
  ) {
    const value = body[key];
    const applies = has(filter.column) && (filter.table ?? table.table) === table.table;
    if (present(value) && applies) {
      where.push(`t.${ident(filter.column)} = ${params.bind(value, filter.type)}`);
    }
  }
  for (
    const [key, filter] of Object.entries(ARRAY_FILTERS) as [
      ArrayKey,
      typeof ARRAY_FILTERS[ArrayKey],
    ][]
  ) {
    const value = body[key];
    if (present(value) && value.length > 0 && has(key)) {
      where.push(`t.${ident(key)} ${filter.operator} ${params.bind(value, filter.type)}`);
    }
  }
  for (const range of RANGE_FILTERS) {
    if (!has(range.column)) continue;
    const min = body[range.min];
    const max = body[range.max];
    if (present(min)) where.push(`t.${ident(range.column)} >= ${params.bind(min, "int")}`);
    if (present(max)) where.push(`t.${ident(range.column)} <= ${params.bind(max, "int")}`);
  }
  if (present(body.spell_type) && table.table === "spell") {
    where.push(SPELL_KINDS[body.spell_type]);
  }
  return where;
}

/** One advanced-mode statement: the table it reads, its text and its bound values. */
export interface AdvancedStatement {
  table: SearchTable;
  text: string;
  values: unknown[];
}

/**
 * Builds advanced mode's one statement: the exact filters of the body on the one table `type`
 * names; filters the table has no column for are ignored. Full rows, spells by rank and leveled
 * content by level, then name and id, at most ADVANCED_LIMIT. Null when `type` names no table
 * (absent, or `content-source`).
 */
export function advancedStatement(body: SearchDataBody): AdvancedStatement | null {
  const table = SEARCH_TABLES.find((t) => t.type !== null && t.type === body.type);
  if (!table) return null;
  const params = new SqlParams();
  const where = conditionsFor(table, body, params);
  const columns = Object.keys(table.resource.shape).map((c) => `t.${ident(c)}`).join(", ");
  const order = [table.order ? `t.${ident(table.order)}` : null, "t.name", "t.id"]
    .filter((c) => c !== null).join(", ");
  return {
    table,
    text: `select ${columns} from public.${ident(table.table)} t
     where ${where.join(" and ")}
     order by ${order}
     limit ${ADVANCED_LIMIT}`,
    values: params.values,
  };
}

/** Advanced mode: every bucket present, the `type` bucket filled by one statement. */
export async function advancedSearch(tx: Tx, body: SearchDataBody): Promise<AdvancedResult> {
  const result: AdvancedResult = emptyResult();
  const statement = advancedStatement(body);
  if (!statement) return result;
  const rows = await tx.unsafe(statement.text, statement.values as never[]);
  return { ...result, [statement.table.bucket]: rows };
}
