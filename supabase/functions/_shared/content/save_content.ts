import type { z } from "zod";
import type { Tx } from "../db/pool.ts";
import { fail } from "../envelope.ts";
import { findContent, ident, selectList } from "./find_content.ts";
import type { ContentTable } from "./tables.ts";

// Never written from a body: ids and timestamps belong to the database, the owner to a trigger.
const SERVER_MANAGED = new Set(["id", "created_at", "updated_at", "user_id"]);

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The one create-or-update behind every create-<type>. Without `id` (or with `newId`) it inserts;
 * with `id` it writes only the keys present (null clears) to a row the caller can see and write,
 * failing `<Type> not found` or `You do not have access to this <type>` otherwise. Returns the row
 * as stored. Row-level policies and column grants still decide; these checks only name the refusal.
 */
export async function saveContent<S extends z.ZodObject>(
  tx: Tx,
  table: ContentTable<S>,
  body: Record<string, unknown>,
  newId?: number,
): Promise<z.input<S>> {
  const id = body.id;
  const isInsert = insertsBody(body, newId);
  const values = writtenValues(table, body, isInsert);
  if (
    isInsert && table.sourceColumn === "content_source_id" && values.content_source_id === undefined
  ) {
    throw fail("Missing required field: content_source_id");
  }
  const columns = Object.keys(values).map(ident);
  if (isInsert) return await insertInOneStatement(tx, table, values, columns);
  if (columns.length > 0) {
    return await updateInOneStatement(tx, table, values, columns, Number(id));
  }
  // An update that changes nothing: the record is only checked and read, both in one round trip.
  const checked = tx.unsafe(
    `select private.can_write_source(t.${ident(table.sourceColumn)}) as writable
     from public.${ident(table.table)} t where t.id = $1::bigint`,
    [Number(id)],
  );
  const found = findContent(tx, table, { id: Number(id) });
  const [row] = await checked;
  if (!row) throw fail(`${capitalized(table.label)} not found`);
  if (row.writable !== true) throw fail(`You do not have access to this ${table.label}`);
  const [saved] = await found;
  if (!saved) throw new Error(`Saved ${table.label} ${id} could not be read back`);
  return saved;
}

/** The columns a body writes: the resource's, less the server's own and, on update, the source. */
function writtenValues(
  table: ContentTable,
  body: Record<string, unknown>,
  isInsert: boolean,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const column of Object.keys(table.resource.shape)) {
    if (SERVER_MANAGED.has(column) || body[column] === undefined) continue;
    if (!isInsert && column === table.sourceColumn) continue; // content never changes source
    values[column] = body[column];
  }
  return values;
}

/**
 * What a save's statement returns of the row it wrote, for the select list to read as `t`: the
 * whole row, or where the type has computed columns only the stored ones (a content source's
 * `keys` cannot be returned, only read through `private.my_source_keys()`).
 */
function storedColumns(table: ContentTable, alias: string): string {
  if (table.computed === undefined) return `${alias}*`;
  return Object.keys(table.resource.shape).filter((column) => !table.computed?.[column])
    .map((column) => `${alias}${ident(column)}`).join(", ");
}

/** Whether a body inserts: it names no id, or the id that means "new" (`newId`). */
function insertsBody(body: Record<string, unknown>, newId?: number): boolean {
  return body.id === undefined || body.id === newId;
}

/**
 * The source check, the insert and the row as stored, in one statement sent at once: when the
 * source is not readable or not writable, nothing is inserted and the refusal is named. A content
 * source itself is in no source: its policies alone decide (and a body of none of its columns
 * inserts its defaults).
 */
async function insertInOneStatement<S extends z.ZodObject>(
  tx: Tx,
  table: ContentTable<S>,
  values: Record<string, unknown>,
  columns: string[],
): Promise<z.input<S>> {
  const target = `public.${ident(table.table)}`;
  const inSource = table.sourceColumn === "content_source_id";
  const inserted = columns.length === 0 ? `insert into ${target} default values` : `
       insert into ${target} (${columns.join(", ")})
       select ${columns.map((c) => `r.${c}`).join(", ")}
       from jsonb_populate_record(null::${target}, $1::jsonb) r, source
       where source.readable and source.writable`;
  const params = columns.length === 0
    ? []
    : inSource
    ? [values as never, Number(values.content_source_id)]
    : [values as never];
  const rows = await tx.unsafe(
    `with source as (
       select ${
      inSource
        ? "private.can_read_source($2::bigint) as readable, private.can_write_source($2::bigint)"
        : "true as readable, true"
    } as writable
     ), saved as (${inserted}
       returning ${storedColumns(table, "")}
     )
     select source.readable as "__readable", source.writable as "__writable", ${selectList(table)}
     from source left join saved t on true`,
    params,
  );
  const [row] = rows;
  if (row?.__readable !== true) throw fail("Content source not found");
  if (row.__writable !== true) throw fail("You do not have access to this content source");
  const { __readable: _, __writable: __, ...saved } = row;
  return saved as z.input<S>;
}

/**
 * The writability check, the update and the row as stored, in one statement sent at once: a record
 * the caller cannot see is not found, one whose source it cannot write is refused, and either way
 * nothing is written.
 */
async function updateInOneStatement<S extends z.ZodObject>(
  tx: Tx,
  table: ContentTable<S>,
  values: Record<string, unknown>,
  columns: string[],
  id: number,
): Promise<z.input<S>> {
  const target = `public.${ident(table.table)}`;
  const rows = await tx.unsafe(
    `with found as (
       select t.id, private.can_write_source(t.${ident(table.sourceColumn)}) as writable
       from ${target} t where t.id = $2::bigint
     ), saved as (
       update ${target} t set ${columns.map((c) => `${c} = r.${c}`).join(", ")}
       from jsonb_populate_record(null::${target}, $1::jsonb) r, found
       where t.id = found.id and found.writable
       returning ${storedColumns(table, "t.")}
     )
     select exists (select from found) as "__found",
            coalesce((select writable from found), false) as "__writable",
            exists (select from saved) as "__saved", ${selectList(table)}
     from (select) one left join saved t on true`,
    [values as never, id],
  );
  const [row] = rows;
  if (row?.__found !== true) throw fail(`${capitalized(table.label)} not found`);
  if (row.__writable !== true || row.__saved !== true) {
    throw fail(`You do not have access to this ${table.label}`);
  }
  const { __found: _, __writable: __, __saved: ___, ...saved } = row;
  return saved as z.input<S>;
}
