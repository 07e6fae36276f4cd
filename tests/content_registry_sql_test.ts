/**
 * The TypeScript content registry (shared/content_types.ts and the server side,
 * supabase/functions/_shared/content/tables.ts) and the SQL list of content tables
 * (private.content_table) name the same types, and everything the SQL side makes from its list
 * exists for every listed table: policies, triggers, grants, the search document, the source,
 * name and search indexes, the table's ranked-search helper and its call in
 * private.search_ranked_ids. Asked of the database the harness built, as its owner; anything
 * these tests make is rolled back.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import type postgres from "postgres";
import { ContentType, contentTypes } from "@shared/content_types.ts";
import { contentTable } from "../supabase/functions/_shared/content/tables.ts";

const contentTables = Object.fromEntries(
  Object.entries(contentTypes).map(([name, type]) => [name, contentTable(type)]),
);
import { adminSql, test } from "./_harness.ts";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";

class Undo extends Error {}

/** Runs `body` in a transaction that is always rolled back. */
async function rolledBack(body: (tx: postgres.TransactionSql) => Promise<void>): Promise<void> {
  await adminSql.begin(async (tx) => {
    await body(tx);
    throw new Undo();
  }).catch((e) => {
    if (!(e instanceof Undo)) throw e;
  });
}

interface ListedTable {
  name: string;
  searched_columns: string[];
  search_bucket: string;
  moderated: boolean;
}

async function listedTables(sql: postgres.Sql | postgres.TransactionSql): Promise<ListedTable[]> {
  return await sql<ListedTable[]>`
    select c.name, c.searched_columns, c.search_bucket, c.moderated
    from private.content_table c order by c.name`;
}

const POLICIES = [
  "Content can be added to writable sources",
  "Content of readable sources can be read",
  "Content of writable sources can be deleted",
  "Content of writable sources can be edited",
];
const TRIGGERS = ["bump_content_source", "bump_content_source_on_edit", "touch_updated_at"];

/** What private.provision_content_table should have made for a listed table and did not. */
async function missingParts(tx: postgres.TransactionSql, table: ListedTable): Promise<string[]> {
  const t = table.name;
  const [found] = await tx<{
    rls: boolean;
    policies: string[];
    triggers: string[];
    indexes: string[];
    search_vector: boolean;
    anon_reads: boolean;
    user_inserts_name: boolean;
    user_updates_source: boolean;
    helper: boolean;
    helper_granted: boolean;
    called: boolean;
  }[]>`
    with r as (select to_regclass('public.' || quote_ident(${t})) as oid),
      f as (select to_regprocedure('private.' || quote_ident('search_ranked_' || ${t}) ||
        '(bigint[], text, text, tsquery, tsquery, integer)') as oid)
    select
      (select c.relrowsecurity from pg_class c where c.oid = r.oid) as rls,
      array(select p.polname::text from pg_policy p where p.polrelid = r.oid order by 1)
        as policies,
      array(select g.tgname::text from pg_trigger g
        where g.tgrelid = r.oid and not g.tgisinternal and g.tgname::text = any (${TRIGGERS})
        order by 1) as triggers,
      array(select c.relname::text from pg_index i join pg_class c on c.oid = i.indexrelid
        where i.indrelid = r.oid order by 1) as indexes,
      exists (select from pg_attribute a
        where a.attrelid = r.oid and a.attname = 'search_vector' and a.attgenerated = 's')
        as search_vector,
      has_table_privilege(${REQUEST_ROLES.anon}, r.oid, 'select') as anon_reads,
      has_column_privilege(${REQUEST_ROLES.authenticated}, r.oid, 'name', 'insert') as user_inserts_name,
      has_column_privilege(${REQUEST_ROLES.authenticated}, r.oid, 'content_source_id', 'update')
        as user_updates_source,
      f.oid is not null as helper,
      f.oid is not null and has_function_privilege('service_role', f.oid, 'execute')
        as helper_granted,
      position(
        format('select %L, r.id, r.ord', ${table.search_bucket}::text) || ' from private.' ||
          quote_ident('search_ranked_' || ${t}) || '(' in
        regexp_replace(
          (select p.prosrc from pg_proc p
           where p.oid = 'private.search_ranked_ids(text, text, text, text, bigint[], integer)'
             ::regprocedure),
          '[[:space:]]+', ' ', 'g')
      ) > 0 as called
    from r, f`;
  if (!found) return [`${t}: no such table`];
  const missing: string[] = [];
  if (!found.rls) missing.push("row-level security");
  for (const p of POLICIES) if (!found.policies.includes(p)) missing.push(`policy "${p}"`);
  for (const g of TRIGGERS) if (!found.triggers.includes(g)) missing.push(`trigger ${g}`);
  const indexes = [
    "source_idx",
    "name_idx",
    "name_id_idx",
    "search_vector_idx",
    "lower_name_trgm_idx",
    "name_similarity_idx",
    ...table.searched_columns.map((c) => `${c}_trgm_idx`),
  ].map((suffix) => `${t}_${suffix}`);
  for (const i of indexes) if (!found.indexes.includes(i)) missing.push(`index ${i}`);
  if (!found.search_vector) missing.push("column search_vector");
  if (!found.anon_reads) missing.push("select grant to anon");
  if (!found.user_inserts_name) missing.push("insert grant on name to authenticated");
  if (found.user_updates_source) missing.push("no update grant on content_source_id");
  if (!found.helper) missing.push(`function private.search_ranked_${t}`);
  if (!found.helper_granted) missing.push(`execute on private.search_ranked_${t} to service_role`);
  if (!found.called) missing.push(`its call in private.search_ranked_ids`);
  return missing.map((m) => `${t}: ${m}`);
}

/**
 * Makes one row in a content table with the given name in the given source, filling each other
 * column that needs a value with a plain one of its type.
 */
async function insertRow(
  tx: postgres.TransactionSql,
  table: string,
  name: string,
  sourceId: number,
): Promise<number> {
  const required = await tx<{ column: string; type: string; first_label: string | null }[]>`
    select a.attname::text as column, format_type(a.atttypid, a.atttypmod) as type,
      (select e.enumlabel::text from pg_enum e where e.enumtypid = a.atttypid
       order by e.enumsortorder limit 1) as first_label
    from pg_attribute a
    where a.attrelid = to_regclass('public.' || quote_ident(${table}))
      and a.attnum > 0 and not a.attisdropped and a.attnotnull and not a.atthasdef
      and a.attidentity = '' and a.attgenerated = ''
      and a.attname not in ('name', 'content_source_id')
    order by a.attnum`;
  const columns = ["name", "content_source_id"];
  const values: unknown[] = [name, sourceId];
  for (const { column, type, first_label } of required) {
    columns.push(column);
    if (first_label !== null) values.push(first_label);
    else if (/^(smallint|integer|bigint|numeric|real|double precision)$/.test(type)) values.push(0);
    else if (type === "text") values.push("");
    else if (type === "boolean") values.push(false);
    else throw new Error(`insertRow: no plain value for ${table}.${column} of type ${type}`);
  }
  const list = columns.map((c) => `"${c}"`).join(", ");
  const placeholders = values.map((_, i) => `$${i + 1}`).join(", ");
  const [row] = await tx.unsafe<{ id: number }[]>(
    `insert into public."${table}" (${list}) values (${placeholders}) returning id`,
    values as never[],
  );
  return Number(row!.id);
}

/** A new official published source (readable by everyone) for rows made in a test. */
async function officialSource(tx: postgres.TransactionSql, name: string): Promise<number> {
  const [source] = await tx<{ id: number }[]>`
    insert into public.content_source (name, is_published) values (${name}, true) returning id`;
  return Number(source!.id);
}

/** What private.search_ranked_ids answers for a name, by bucket: the ids in rank order. */
async function rankedByBucket(
  tx: postgres.TransactionSql,
  name: string,
  sourceId: number,
): Promise<Record<string, number[]>> {
  const rows = await tx<{ bucket: string; id: number }[]>`
    select r.bucket, r.id from private.search_ranked_ids(${name.toLowerCase()},
      ${`${name.toLowerCase()}%`}, null, null, ${[sourceId]}::bigint[], 20) r
    order by r.bucket, r.ord`;
  const found: Record<string, number[]> = {};
  for (const { bucket, id } of rows) (found[bucket] ??= []).push(Number(id));
  return found;
}

test("content registry: the TypeScript registry and private.content_table list the same types", async () => {
  const sqlTables = await listedTables(adminSql);
  // Every type whose records belong to a source is a content table; content sources are not.
  const registered = Object.entries(contentTables)
    .filter(([, entry]) => entry.sourceColumn === "content_source_id")
    .map(([type, entry]) => ({
      name: entry.table,
      search_bucket: contentTypes[type as keyof typeof contentTypes].searchBucket,
      moderated: (ContentType.options as string[]).includes(type),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  deepStrictEqual(
    sqlTables.map(({ name, search_bucket, moderated }) => ({ name, search_bucket, moderated })),
    registered,
    "private.content_table (name, search_bucket, moderated) against the registry " +
      "(table, searchBucket, whether ContentType has the type)",
  );

  // SQL names a type as the API does by its table's name with `-` for `_`.
  for (const [type, entry] of Object.entries(contentTables)) {
    equal(entry.table.replaceAll("_", "-"), type, `the API name of table ${entry.table}`);
  }

  // The searched columns are columns the type's resource returns.
  for (const { name, searched_columns } of sqlTables) {
    const entry = Object.values(contentTables).find((e) => e.table === name)!;
    for (const column of searched_columns) {
      equal(column in entry.resource.shape, true, `${name}.${column} is in its resource`);
    }
  }

  // Moderation accepts exactly the interface's content types, each stored in its own table.
  const names = [...Object.keys(contentTypes), "not-a-type", "content_source"];
  const accepted = await adminSql<{ type: string; table: string | null }[]>`
    select x.type, private.content_update_table(x.type) as table
    from unnest(${names}::text[]) x(type)`;
  deepStrictEqual(
    accepted.filter((a) => a.table !== null).map((a) => [a.type, a.table]).sort(),
    [...ContentType.options].map((type) => [type, contentTypes[type].table]).sort(),
  );
});

test("content registry: every listed table has the parts made from the list", async () => {
  await rolledBack(async (tx) => {
    const missing: string[] = [];
    for (const table of await listedTables(tx)) missing.push(...await missingParts(tx, table));
    deepStrictEqual(missing, []);
  });
});

test("content registry: simple search answers every listed table's rows under its bucket", async () => {
  await rolledBack(async (tx) => {
    const tag = `Registrycheck${crypto.randomUUID().slice(0, 8)}`;
    const sourceId = await officialSource(tx, `${tag} source`);
    const expected: Record<string, number> = {};
    for (const table of await listedTables(tx)) {
      expected[table.search_bucket] = await insertRow(tx, table.name, tag, sourceId);
    }
    const found = await rankedByBucket(tx, tag, sourceId);
    for (const [bucket, id] of Object.entries(expected)) {
      equal(found[bucket]?.includes(id), true, `${bucket} answers its row`);
    }
    deepStrictEqual(Object.keys(found).sort(), Object.keys(expected).sort());
  });
});

test("content registry: a new content type is its table, its row of the list and one call", async () => {
  await rolledBack(async (tx) => {
    await tx.unsafe(`
      create table public.registry_check_scroll (
        id bigint generated always as identity primary key,
        name text not null check (char_length(name) between 1 and 200),
        description text not null default '',
        content_source_id bigint not null references public.content_source (id) on delete cascade,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        meta_data jsonb not null default '{}' check (jsonb_typeof(meta_data) = 'object')
      );
      insert into private.content_table (name, searched_columns, search_bucket)
        values ('registry_check_scroll', '{name,description}', 'registry_check_scrolls');
      select private.provision_content_table('registry_check_scroll');`);
    const table = (await listedTables(tx)).find((t) => t.name === "registry_check_scroll")!;
    deepStrictEqual(await missingParts(tx, table), []);

    // The Data API's roles get nothing of it, and its policies are every other type's.
    deepStrictEqual([...await tx`select * from private.data_api_role_privileges()`], []);
    const policiesOf = (name: string) =>
      tx<{ policy: string }[]>`
        select p.polname || ' ' || p.polcmd::text || ' ' || p.polroles::text || ' ' ||
          replace(coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' ' ||
            coalesce(pg_get_expr(p.polwithcheck, p.polrelid), ''), ${name}, '<table>') as policy
        from pg_policy p where p.polrelid = to_regclass('public.' || ${name}) order by 1`;
    deepStrictEqual(await policiesOf("registry_check_scroll"), await policiesOf("spell"));

    const tag = `Scrollcheck${crypto.randomUUID().slice(0, 8)}`;
    const sourceId = await officialSource(tx, `${tag} source`);
    const id = await insertRow(tx, table.name, tag, sourceId);
    deepStrictEqual((await rankedByBucket(tx, tag, sourceId))["registry_check_scrolls"], [id]);

    // Its read policy lets a signed-out visitor read it, as every other type's.
    await tx`select set_config('request.jwt.claims', '{"role":"anon"}', true)`;
    await tx.unsafe(`set local role ${REQUEST_ROLES.anon}`);
    const visible = await tx<{ id: number }[]>`
      select id from public.registry_check_scroll where id = ${id}`;
    await tx.unsafe("reset role");
    deepStrictEqual(visible.map((r) => Number(r.id)), [id]);

    // Moderation accepts its type by the API's name for it.
    const [moderated] = await tx<{ table: string | null }[]>`
      select private.content_update_table('registry-check-scroll') as table`;
    equal(moderated?.table, "registry_check_scroll");
  });
});
