/**
 * Every foreign key of the project has an index that leads with its columns, so deleting or
 * re-keying a referenced row finds the rows that point at it by index instead of scanning their
 * table (what Supabase's database linter reports as `unindexed_foreign_keys`).
 */
import { deepStrictEqual } from "node:assert/strict";
import { adminSql, test } from "./_harness.ts";

test("every foreign key in the project's schemas has an index leading with its columns", async () => {
  const [row] = await adminSql<{ unindexed: string[] }[]>`
    select coalesce(array_agg(k.conrelid::regclass::text || ' (' || (
      select string_agg(a.attname, ', ' order by a.attnum) from pg_attribute a
      where a.attrelid = k.conrelid and a.attnum = any (k.conkey)
    ) || ')' order by 1), '{}') as unindexed
    from pg_constraint k
    where k.contype = 'f'
      and k.connamespace in (select s from private.project_schemas() s)
      and not exists (
        select from pg_index i
        where i.indrelid = k.conrelid and i.indpred is null and i.indisvalid
          -- The index's first columns are the key's columns, in any order.
          and (i.indkey::int2[])[0:cardinality(k.conkey) - 1] @> k.conkey
          and (i.indkey::int2[])[0:cardinality(k.conkey) - 1] <@ k.conkey
      )`;
  deepStrictEqual(row?.unindexed, []);
});
