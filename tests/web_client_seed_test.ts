import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import postgres from "postgres";
import { adminSql, call, makeUser, successData, test } from "./_harness.ts";
import { listMigrations, migrate } from "../scripts/server/migrate.ts";
import { freshDatabase } from "../scripts/support/fresh_database.ts";
import { realPostgresUrl } from "./support/test_database.ts";

// The seed against what the web client reads of each record type (frontend/src of the reference:
// the reads it makes without a guard, noted beside each shape), and the content source ids it
// hard-codes (frontend/src/constants/data.ts).

/** The content source ids the client names: Pathfinder core, the shared core, Starfinder core. */
const CLIENT_SOURCE_IDS = [1, 3, 579];

type Row = Record<string, unknown>;
type Shape = (row: Row) => string[];

const isObject = (v: unknown): v is Row => typeof v === "object" && v !== null && !Array.isArray(v);
const isNumberList = (v: unknown) => Array.isArray(v) && v.every((n) => typeof n === "number");

function need(problems: string[], condition: boolean, what: string): void {
  if (!condition) problems.push(what);
}

/** Fields every record type shares: a name, a description text, its source. */
const record: Shape = (row) => {
  const problems: string[] = [];
  need(problems, typeof row.name === "string", "name is text");
  need(problems, typeof row.description === "string", "description is text");
  need(problems, typeof row.content_source_id === "number", "content_source_id is a number");
  return problems;
};

/** The shape of each type as the client reads it, keyed by the find function's type name. */
const SHAPES: Record<string, Shape> = {
  // ContentSourceDrawer: `source.description`, `source.name.length`.
  "content-source": (row) => {
    const problems: string[] = [];
    need(problems, typeof row.name === "string", "name is text");
    need(problems, typeof row.description === "string", "description is text");
    need(problems, isObject(row.meta_data), "meta_data is an object");
    return problems;
  },
  // CreateTraitModal and TraitDrawer: `trait.meta_data.important` and the other flags.
  trait: (row) => [
    ...record(row),
    ...(isObject(row.meta_data) ? [] : ["meta_data is an object"]),
  ],
  // ItemIcon and inv-utils: `item.meta_data?.bulk.capacity`, `.bulk.ignored`; ItemDrawer prices.
  item: (row) => {
    const problems = record(row);
    need(problems, isObject(row.meta_data), "meta_data is an object");
    need(problems, isObject((row.meta_data as Row)?.bulk), "meta_data.bulk is an object");
    need(problems, row.price === null || isObject(row.price), "price is an object or null");
    need(problems, isNumberList(row.traits), "traits is a list of ids");
    return problems;
  },
  // spell-utils: `spell.meta_data.focus`, `.ritual`; SpellDrawer: `heightened.text[]`.
  spell: (row) => {
    const problems = record(row);
    need(problems, isObject(row.meta_data), "meta_data is an object");
    need(problems, Array.isArray(row.traditions), "traditions is a list");
    const heightened = row.heightened as Row | null;
    need(
      problems,
      heightened === null || (isObject(heightened) &&
        (heightened.text === undefined || (Array.isArray(heightened.text) &&
          heightened.text.every((t: unknown) =>
            isObject(t) && typeof t.amount === "string" && typeof t.text === "string"
          )))),
      "heightened is null or {text: [{amount, text}]}",
    );
    return problems;
  },
  // SelectContent and the feat drawers: traits and prerequisites as lists.
  "ability-block": (row) => {
    const problems = record(row);
    need(problems, isObject(row.meta_data), "meta_data is an object");
    need(problems, isNumberList(row.traits), "traits is a list of ids");
    need(problems, Array.isArray(row.prerequisites), "prerequisites is a list");
    return problems;
  },
  // collect-content: feats by `entity.details.class.trait_id`.
  class: (row) => {
    const problems = record(row);
    need(problems, typeof row.trait_id === "number", "trait_id is a number");
    need(problems, typeof row.skill_training_base === "number", "skill_training_base is a number");
    return problems;
  },
  ancestry: (row) => {
    const problems = record(row);
    need(problems, typeof row.trait_id === "number", "trait_id is a number");
    return problems;
  },
  archetype: (row) => {
    const problems = record(row);
    need(problems, typeof row.trait_id === "number", "trait_id is a number");
    return problems;
  },
  // VersatileHeritageDrawer loads the heritage it names.
  "versatile-heritage": (row) => {
    const problems = record(row);
    need(problems, typeof row.trait_id === "number", "trait_id is a number");
    need(problems, typeof row.heritage_id === "number", "heritage_id is a number");
    return problems;
  },
  // ClassArchetypeDrawer: `feature_adjustments[].fa_id`, `.type`.
  "class-archetype": (row) => {
    const problems = record(row);
    need(problems, typeof row.class_id === "number", "class_id is a number");
    need(
      problems,
      Array.isArray(row.feature_adjustments) &&
        row.feature_adjustments.every((fa: unknown) =>
          isObject(fa) && typeof fa.fa_id === "string" &&
          ["ADD", "REPLACE", "REMOVE"].includes(String(fa.type))
        ),
      "feature_adjustments is a list of {fa_id, type}",
    );
    return problems;
  },
  language: record,
  background: record,
  // CreatureDrawer: `creature.details.image_url`; the stat block: `details.description`.
  creature: (row) => {
    const problems = record({ ...row, description: (row.details as Row)?.description });
    need(problems, isObject(row.details), "details is an object");
    need(problems, typeof row.level === "number", "level is a number");
    return problems;
  },
  hazard: (row) => {
    const problems = record({ ...row, description: (row.details as Row)?.description });
    need(problems, isObject(row.details), "details is an object");
    return problems;
  },
};

/** The seeded rows of one type, as an admin reads them: those the seed's transaction wrote. */
async function seeded(type: string, token: string, seededAt: unknown): Promise<Row[]> {
  const body = type === "content-source" ? { id: [1, 2, 3] } : { content_sources: [1, 2, 3] };
  const rows: Row[] = successData(await call(`find-${type}`, body, { token }));
  return rows.filter((r) => r.created_at === seededAt);
}

test("seed: every seeded record has the shape the web client reads, type by type", async () => {
  const admin = await makeUser({ admin: true });
  const token = admin.access_token;
  const [core] = successData(await call("find-content-source", { id: [1] }, { token }));
  for (const [type, shape] of Object.entries(SHAPES)) {
    const rows = await seeded(type, token, core.created_at);
    ok(rows.length > 0, `the seed has ${type} rows`);
    for (const row of rows) {
      deepStrictEqual(shape(row), [], `${type} ${row.id} (${row.name})`);
    }
  }
});

test("seed: the official sources hold the ids the web client names", async () => {
  const rows = await adminSql<{ id: string; user_id: string | null; is_published: boolean }[]>`
    select id, user_id, is_published from public.content_source
    where id = any(${CLIENT_SOURCE_IDS}::bigint[]) order by id`;
  deepStrictEqual(
    rows.map((r) => [Number(r.id), r.user_id, r.is_published]),
    [[1, null, true], [3, null, true]],
    "the Pathfinder core and the shared core are official and published; the seed has no " +
      "Starfinder book, whose id stays free for one",
  );
  const [reserved] = await adminSql<{ ids: string[] }[]>`
    select private.official_source_reserved_ids() as ids`;
  deepStrictEqual(reserved?.ids.map(Number), CLIENT_SOURCE_IDS);
});

test("seed: no homebrew source can hold an id the web client names", async () => {
  const owner = await makeUser({ tier: 2 });
  for (const id of CLIENT_SOURCE_IDS) {
    await rejects(
      adminSql.begin(async (tx) => {
        await tx`delete from public.content_source where id = ${id}`;
        await tx`insert into public.content_source (id, name, user_id) overriding system value
                 values (${id}, 'Squatter', ${owner.user_id})`;
      }),
      /content_source_reserved_ids_are_official/,
      `homebrew at ${id}`,
    );
  }
  await rejects(
    adminSql`update public.content_source set user_id = ${owner.user_id} where id = 1`,
    /content_source_reserved_ids_are_official/,
  );
  const [{ next }] = await adminSql<{ next: string }[]>`
    select last_value as next from public.content_source_id_seq` as unknown as [{ next: string }];
  ok(Number(next) >= 579, "new sources are numbered after the reserved ids");
});

const serverUrl = realPostgresUrl();
const RESERVE_MIGRATION = "20261128000310";

Deno.test({
  name: "seed: an upgrade moves homebrew off the reserved ids with everything that names it",
  // Builds a database of its own on the Postgres server the run was pointed at.
  ignore: serverUrl === null,
  async fn() {
    const db = await freshDatabase(serverUrl!, "rpgreserve");
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      // The database as it was before the migration: every other file applied, no seed.
      ok((await listMigrations()).some((f) => f.version === RESERVE_MIGRATION));
      await sql.unsafe(`
        create schema supabase_migrations;
        create table supabase_migrations.schema_migrations (
          version text primary key, statements text[], name text);`);
      await sql`insert into supabase_migrations.schema_migrations (version)
                values (${RESERVE_MIGRATION})`;
      await migrate(sql, { seed: false });
      await sql`delete from supabase_migrations.schema_migrations
                where version = ${RESERVE_MIGRATION}`;

      const [{ id: userId }] = await sql<{ id: string }[]>`
        insert into auth.users (id, email) values (gen_random_uuid(), 'old@example.test')
        returning id::text` as unknown as [{ id: string }];
      await sql`update public.public_user set supporter_tier = 2 where user_id = ${userId}`;
      await sql`insert into public.content_source (id, name, user_id, is_published)
                overriding system value values
                (1, 'Official', null, true), (2, 'Old official', null, true),
                (3, 'Old homebrew', ${userId}, true), (4, 'Needs three', ${userId}, true),
                (579, 'Late homebrew', ${userId}, false)`;
      await sql`update public.content_source set required_content_sources = '{2,3}' where id = 4`;
      await sql`insert into public.trait (id, content_source_id, name) overriding system value
                values (100, 3, 'Homebrew trait'), (101, 579, 'Late trait'),
                (102, 1, 'Official trait')`;
      await sql`select setval('public.content_source_id_seq', 579)`;
      const [{ id: characterId }] = await sql<{ id: string }[]>`
        insert into public.character (user_id, content_sources)
        values (${userId}, '{"enabled": [1, 3, 579, 4]}') returning id` as unknown as [
        { id: string },
      ];
      await sql`insert into public.campaign (user_id, name, recommended_content_sources)
                values (${userId}, 'Old table', '{"enabled": [3, 1]}')`;
      await sql`update public.public_user set subscribed_content_sources =
        '[{"source_id": 3, "source_name": "Old homebrew", "added_at": "1"},
          {"source_id": 4, "source_name": "Needs three", "added_at": "2"}]'
        where user_id = ${userId}`;

      equal((await migrate(sql, { seed: false })).length, 1, "only the reserve migration ran");

      const sources = await sql<{ id: string; name: string }[]>`
        select id, name from public.content_source order by id`;
      const idOf = (name: string) => Number(sources.find((s) => s.name === name)?.id);
      const moved3 = idOf("Old homebrew");
      const moved579 = idOf("Late homebrew");
      ok(moved3 > 579 && moved579 > 579 && moved3 !== moved579, "both moved after 579");
      deepStrictEqual(
        sources.map((s) => s.name).sort(),
        ["Late homebrew", "Needs three", "Official", "Old homebrew", "Old official"],
        "no source lost",
      );
      equal(idOf("Official"), 1, "official sources keep their ids");
      const traits = await sql<{ name: string; content_source_id: string }[]>`
        select name, content_source_id from public.trait order by id`;
      deepStrictEqual(
        traits.map((t) => [t.name, Number(t.content_source_id)]),
        [["Homebrew trait", moved3], ["Late trait", moved579], ["Official trait", 1]],
      );
      const [character] = await sql<{ content_sources: { enabled: number[] } }[]>`
        select content_sources from public.character where id = ${characterId}`;
      deepStrictEqual(character?.content_sources.enabled, [1, moved3, moved579, 4]);
      const [campaign] = await sql<{ recommended_content_sources: { enabled: number[] } }[]>`
        select recommended_content_sources from public.campaign`;
      deepStrictEqual(campaign?.recommended_content_sources.enabled, [moved3, 1]);
      const [user] = await sql<{ subscribed_content_sources: { source_id: number }[] }[]>`
        select subscribed_content_sources from public.public_user where user_id = ${userId}`;
      deepStrictEqual(user?.subscribed_content_sources.map((s) => s.source_id), [moved3, 4]);
      const [needs] = await sql<{ required_content_sources: string[] }[]>`
        select required_content_sources from public.content_source where id = 4`;
      deepStrictEqual(needs?.required_content_sources.map(Number), [2, moved3]);
      const [next] = await sql<{ id: string }[]>`
        select nextval('public.content_source_id_seq') as id`;
      ok(Number(next?.id) > Math.max(moved3, moved579), "new ids follow the moved ones");
    } finally {
      await sql.end();
      await db.drop();
    }
  },
});
