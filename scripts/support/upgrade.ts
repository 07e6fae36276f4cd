/**
 * What an upgrade must keep: every row of every table of the project's schemas. Shared by
 * tests/upgrade_test.ts (rows) and `deno task schema:compare` (catalog), which both fill a database
 * at the last release with `fill_every_table.sql` and apply the later migrations on top.
 */
import type { MigrationFile } from "../server/migrate.ts";

/** Runs a query and returns its rows (postgres.js and PGlite both fit). */
export type RunQuery = (text: string) => Promise<Record<string, unknown>[]>;

/** The rows of the last release, as a deployed project holds them (run as the database owner). */
export const FILL_EVERY_TABLE = new URL("fill_every_table.sql", import.meta.url);

/** The schemas whose tables hold the project's data. */
const DATA_SCHEMAS = ["public", "private"];

/** One table's rows: its columns, and each row as canonical JSON, sorted. */
export interface TableRows {
  columns: string[];
  rows: string[];
}

/** The project's tables, schema-qualified and sorted. */
export async function dataTables(query: RunQuery): Promise<string[]> {
  const rows = await query(`
    select n.nspname || '.' || c.relname as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname in (${DATA_SCHEMAS.map((s) => `'${s}'`).join(", ")})
      and c.relkind in ('r', 'p') and not c.relispartition
    order by 1`);
  return rows.map((r) => String(r.name));
}

/** The project's tables that hold no row. */
export async function emptyTables(query: RunQuery): Promise<string[]> {
  const empty: string[] = [];
  for (const table of await dataTables(query)) {
    const [row] = await query(`select exists (select from ${quoted(table)}) as filled`);
    if (!row?.filled) empty.push(table);
  }
  return empty;
}

/** Every row of every project table. */
export async function snapshotRows(query: RunQuery): Promise<Map<string, TableRows>> {
  const snapshot = new Map<string, TableRows>();
  for (const table of await dataTables(query)) {
    const columns = (await query(`
      select a.attname as name from pg_attribute a
      where a.attrelid = '${quoted(table)}'::regclass and a.attnum > 0 and not a.attisdropped
      order by a.attnum`)).map((r) => String(r.name));
    const rows = await query(`select to_jsonb(t)::text as row from ${quoted(table)} t`);
    snapshot.set(table, {
      columns,
      rows: rows.map((r) => canonical(JSON.parse(String(r.row)))).sort(),
    });
  }
  return snapshot;
}

/**
 * The tables whose rows a migration says it changes, each with the reason given: a line
 * `-- Changes rows of <schema>.<table>: <why>` in the migration file. Anything else an upgrade
 * does to existing rows is data loss.
 */
export async function documentedRowChanges(files: MigrationFile[]): Promise<Map<string, string>> {
  const changes = new Map<string, string>();
  for (const file of files) {
    const text = await Deno.readTextFile(file.path);
    for (const match of text.matchAll(/^-- Changes rows of (\w+\.\w+): (.+)$/gm)) {
      changes.set(match[1]!, `${file.version}_${file.name}: ${match[2]}`);
    }
  }
  return changes;
}

/**
 * What an upgrade lost, one line per problem: a table gone, a column gone, fewer rows, a row
 * missing or changed. Rows and columns the upgrade added are not losses. Tables in `documented` may
 * change; their differences are left out.
 */
export function lostRows(
  before: Map<string, TableRows>,
  after: Map<string, TableRows>,
  documented: Map<string, string>,
): string[] {
  const problems: string[] = [];
  for (const [table, old] of before) {
    if (documented.has(table)) continue;
    const now = after.get(table);
    if (!now) {
      problems.push(`${table}: the table is gone, with its ${old.rows.length} row(s)`);
      continue;
    }
    const gone = old.columns.filter((c) => !now.columns.includes(c));
    if (gone.length > 0) problems.push(`${table}: column(s) gone: ${gone.join(", ")}`);
    const kept = old.columns.filter((c) => now.columns.includes(c));
    const project = (row: string) => {
      const value = JSON.parse(row) as Record<string, unknown>;
      return canonical(Object.fromEntries(kept.map((c) => [c, value[c]])));
    };
    const remaining = new Map<string, number>();
    for (const row of now.rows.map(project)) remaining.set(row, (remaining.get(row) ?? 0) + 1);
    const missing: string[] = [];
    for (const row of old.rows.map(project)) {
      const left = remaining.get(row) ?? 0;
      if (left === 0) missing.push(row);
      else remaining.set(row, left - 1);
    }
    if (now.rows.length < old.rows.length) {
      problems.push(
        `${table}: ${old.rows.length} row(s) before the upgrade, ${now.rows.length} after`,
      );
    }
    for (const row of missing.slice(0, 3)) {
      problems.push(`${table}: a row is missing or changed: ${row.slice(0, 300)}`);
    }
    if (missing.length > 3) problems.push(`${table}: ${missing.length - 3} more row(s) missing`);
  }
  return problems;
}

/** JSON with object keys sorted at every level, so equal values have equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : v,
  );
}

function quoted(table: string): string {
  return table.split(".").map((part) => `"${part.replaceAll('"', '""')}"`).join(".");
}
