import type postgres from "postgres";
import type { Tx } from "../db/pool.ts";

/**
 * The given fields of a validated body as column values for postgres.js: keys whose value is
 * undefined are left out, and values bound for jsonb columns are wrapped so arrays are sent as
 * JSON rather than as SQL arrays.
 */
export function columnValues<K extends string>(
  tx: Tx,
  body: Partial<Record<K, unknown>>,
  columns: readonly K[],
  jsonColumns: ReadonlySet<K>,
): Record<string, postgres.ParameterOrJSON<never>> {
  const values: Record<string, postgres.ParameterOrJSON<never>> = {};
  for (const column of columns) {
    if (body[column] === undefined) continue;
    // Validated request JSON: every value came out of JSON.parse, so it is a JSON value.
    const value = body[column] as postgres.JSONValue;
    values[column] = jsonColumns.has(column) && value !== null ? tx.json(value) : value;
  }
  return values;
}
