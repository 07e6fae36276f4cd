/**
 * The character fields an API key may change are said twice: in the contract
 * (`API_KEY_WRITABLE_FIELDS`, shared/characters.ts) and in the array of the trigger that enforces
 * them (`private.limit_api_client_character_writes`). Migrations are frozen, so the deployed
 * definition is read from the database the harness built, and the two lists must name the same
 * columns (the trigger also lets `updated_at` through, which another trigger sets on every change).
 */
import { deepStrictEqual, ok } from "node:assert/strict";
import { API_KEY_WRITABLE_FIELDS } from "@shared/characters.ts";
import { adminSql, test } from "./_harness.ts";

/** The columns the deployed trigger lets an API key change, read from its definition. */
async function columnsTheDatabaseAllows(): Promise<string[]> {
  const [row] = await adminSql<{ definition: string }[]>`
    select pg_get_functiondef('private.limit_api_client_character_writes()'::regprocedure)
      as definition`;
  const list = /allowed\s+constant\s+text\[\]\s*:=\s*array\[([^\]]*)\]/i.exec(
    row?.definition ?? "",
  );
  ok(list?.[1], "the trigger keeps its list as `allowed constant text[] := array[...]`");
  return [...list[1].matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
}

test("the fields an API key may change are the ones the database lets it change", async () => {
  const allowed = await columnsTheDatabaseAllows();
  deepStrictEqual(
    allowed.filter((column) => column !== "updated_at").sort(),
    [...API_KEY_WRITABLE_FIELDS].sort(),
  );
});
