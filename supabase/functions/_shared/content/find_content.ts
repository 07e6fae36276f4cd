import type { z } from "zod";
import type { ReadStatement } from "../db/as_caller.ts";
import type { Tx } from "../db/pool.ts";
import { RowStream } from "../row_stream.ts";
import type { ContentTable } from "./tables.ts";

/**
 * Rows a streamed find reads before its answer starts, and per batch after that. A batch is what
 * a stream holds; 250 rows cost one round trip more per 250 rows than 1,000 did, and keep memory
 * bounded (twenty stalled readers added about 120 MB instead of 190). A find whose rows fit the
 * first batch answers without streaming.
 */
export const FIRST_BATCH = 500;
export const BATCH = 250;

/** Filters every find body may carry; per-type extras are read through the table's `filters`. */
export interface FindFilters {
  id?: number | readonly number[] | undefined;
  name?: string | undefined;
  content_sources?: readonly number[] | undefined;
}

/** Quotes an identifier taken from our own table definitions. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The select list of a content type: its resource's keys, computed columns by expression. */
export function selectList(table: ContentTable): string {
  return Object.keys(table.resource.shape).map((column) => {
    const expression = table.computed?.[column];
    return expression ? `(${expression}) as ${ident(column)}` : `t.${ident(column)}`;
  }).join(", ");
}

/**
 * The one find implementation behind every find-<type>: `id` (one or many), `name` in any case
 * (the whole name or a part of it, as the type's contract says), `content_sources` (omitted or empty: official published sources only, unless an id or a
 * lifting filter is given), the table's extra filters; row-level policies decide visibility.
 * Ordered by name then id (by part of a name, a record of that whole name first).
 */
export async function findContent<S extends z.ZodObject>(
  tx: Tx,
  table: ContentTable<S>,
  body: FindFilters,
): Promise<z.input<S>[]> {
  const { text, params } = findStatement(table, body);
  const rows = await tx.unsafe(text, params as never[], { prepare: true });
  return rows as unknown as z.input<S>[];
}

/**
 * Every row a find matches, however many: up to FIRST_BATCH as a plain list, more as a RowStream
 * over a cursor of the request's transaction, read BATCH rows at a time while the answer is sent.
 */
export async function findAllContent<S extends z.ZodObject>(
  tx: Tx,
  table: ContentTable<S>,
  body: FindFilters,
): Promise<z.input<S>[] | RowStream> {
  const { text, params, defaultSourcesOnly } = findStatement(table, body);
  if (defaultSourcesOnly) {
    // Every row of the default sources, however many: the cursor is planned for its first rows
    // (`cursor_tuple_fraction`), so it reads in name order from the (name, id) index and its first
    // batch is ready after its own rows. At the default fraction, and without statistics (rows
    // just loaded, not yet analyzed), the planner expected a few hundred rows and read and sorted
    // them all first (140-170 ms for 30,000 ability blocks, against 7 ms this way); with
    // statistics it walks the index by itself. The planner still weighs the two, so a table whose
    // default rows are few still sorts them.
    tx.unsafe(`select set_config('cursor_tuple_fraction', '0.001', true)`);
  }
  const declared = tx.unsafe(`declare find_rows no scroll cursor for ${text}`, params as never[]);
  const first = tx.unsafe(`fetch forward ${FIRST_BATCH} from find_rows`);
  await declared;
  const rows = await first;
  if (rows.length < FIRST_BATCH) return rows as unknown as z.input<S>[];
  return new RowStream(rows, (more) => more.unsafe(`fetch forward ${BATCH} from find_rows`), BATCH);
}

/**
 * The find statement: its text is built from the table's definition and which filters are
 * present; every value is a parameter. Run as one statement for a find by id (`read`), in a
 * transaction otherwise.
 */
export function findStatement(
  table: ContentTable,
  body: FindFilters,
): ReadStatement & { defaultSourcesOnly: boolean } {
  const params: unknown[] = [];
  const param = (value: unknown, type: string): string => {
    params.push(value);
    return `$${params.length}::${type}`;
  };
  const where: string[] = [];
  const source = `t.${ident(table.sourceColumn)}`;
  const extras = body as Record<string, unknown>;

  if (body.id !== undefined) {
    where.push(
      `t.id = any(${param(typeof body.id === "number" ? [body.id] : body.id, "bigint[]")})`,
    );
  }
  // By part of a name, the record of that whole name comes first: the web client takes the first
  // record a name finds as the record of that name ("Fire", not "Bonfire").
  let wholeNameFirst = "";
  if (body.name !== undefined) {
    const name = param(body.name, "text");
    if (table.nameMatch === "exact") {
      where.push(`lower(t.name) = lower(${name})`);
    } else {
      // strpos, not like: nothing in the part (`%`, `_`) is a pattern.
      where.push(`strpos(lower(t.name), lower(${name})) > 0`);
      wholeNameFirst = `lower(t.name) <> lower(${name}), `;
    }
  }
  let lifted = body.id !== undefined;
  for (const [key, filter] of Object.entries(table.filters)) {
    const value = extras[key];
    if (value === undefined) continue;
    lifted ||= filter.liftsDefault === true;
    const column = `t.${ident(filter.column)}`;
    if (filter.match === "is_null") {
      if (value === true) where.push(`${column} is null`);
      continue;
    }
    where.push(
      filter.match === "equals"
        ? `${column} = ${param(value, filter.type)}`
        : filter.match === "equals_text"
        ? `${column}::text = ${param(value, "text")}`
        : `${column} @> ${param(value, filter.type)}`,
    );
  }
  // With no filter beyond the default sources, the find is every row they hold.
  let defaultSourcesOnly = false;
  if (body.content_sources && body.content_sources.length > 0) {
    where.push(`${source} = any(${param(body.content_sources, "bigint[]")})`);
  } else if (!lifted) {
    defaultSourcesOnly = where.length === 0;
    where.push(`${source} in (select o.id from private.official_source_ids() o(id))`);
  }

  const query = `select ${selectList(table)} from public.${ident(table.table)} t
    ${where.length > 0 ? `where ${where.join(" and ")}` : ""}
    order by ${wholeNameFirst}t.name, t.id`;
  return { text: query, params, defaultSourcesOnly };
}
