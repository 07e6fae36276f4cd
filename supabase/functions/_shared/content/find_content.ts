import type { z } from "zod";
import type { ReadStatement, Tx } from "../db.ts";
import type { ContentTable } from "./tables.ts";

/** The most rows one find call returns; documented in docs/content.md. */
export const FIND_CAP = 5_000;

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
 * The one find statement behind every find-<type>: `id` (one or many), `name` exact in any case,
 * `content_sources` (omitted or empty: official published sources only, unless an id or a lifting
 * filter is given), the table's extra filters; row-level policies decide visibility. Ordered by
 * name then id, at most FIND_CAP rows. Its text is built from the table's definition and which
 * filters are present; every value is a parameter.
 */
export function findStatement(table: ContentTable, body: FindFilters): ReadStatement {
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
  if (body.name !== undefined) {
    where.push(`lower(t.name) = lower(${param(body.name, "text")})`);
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
  if (body.content_sources && body.content_sources.length > 0) {
    where.push(`${source} = any(${param(body.content_sources, "bigint[]")})`);
  } else if (!lifted) {
    where.push(`${source} in (select o.id from private.official_source_ids() o(id))`);
  }

  const query = `select ${selectList(table)} from public.${ident(table.table)} t
    ${where.length > 0 ? `where ${where.join(" and ")}` : ""}
    order by t.name, t.id
    limit ${FIND_CAP}`;
  return { text: query, params };
}

/** The find statement run in a transaction (for handlers that do more than this one read). */
export async function findContent<S extends z.ZodObject>(
  tx: Tx,
  table: ContentTable<S>,
  body: FindFilters,
): Promise<z.input<S>[]> {
  const { text, params } = findStatement(table, body);
  const rows = await tx.unsafe(text, params as never[], { prepare: true });
  return rows as unknown as z.input<S>[];
}
