import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import { callSignedOut } from "./support/signed_out.ts";
import { similarityTables } from "../supabase/functions/_shared/similarity/similarity_tables.ts";

interface Match {
  data: Record<string, string | number | boolean>;
  distance: number;
}

async function query(user: TestUser | string, body: Record<string, unknown>): Promise<Match[]> {
  const token = typeof user === "string" ? user : user.access_token;
  return successData(await call("vector-db-query-collection", body, { token }));
}

/** A homebrew source of `owner`, unpublished unless asked, holding one spell. */
async function homebrewSpell(
  owner: TestUser,
  name: string,
  published = false,
): Promise<{ source: number; spell: number }> {
  const [source] = await adminSql<{ id: number }[]>`
    insert into public.content_source (name, user_id, is_published)
    values (${`Homebrew ${crypto.randomUUID()}`}, ${owner.user_id}, ${published}) returning id`;
  const [spell] = await adminSql<{ id: number }[]>`
    insert into public.spell (name, rank, content_source_id, description)
    values (${name}, 1, ${source!.id}, 'Stars fall slowly over a chosen square.') returning id`;
  return { source: source!.id, spell: spell!.id };
}

test("a typo on the name collection finds the intended record at distance below 0.5", async () => {
  const user = await makeUser();
  const [best] = await query(user, { collection: "name", query: "Whisperd Erand" });
  ok(best, "a result");
  equal(best.data.name, "Whispered Errand");
  equal(best.data._type, "spell");
  equal(best.data.id, 3);
  equal(best.data.content_source_id, 1);
  ok(best.distance < 0.5, `distance ${best.distance}`);
  const [exact] = await query(user, { collection: "name", query: "Whispered Errand" });
  equal(exact?.distance, 0);
  equal("search_vector" in (exact?.data ?? {}), false);
});

test("results are ordered by distance, capped by nResults and cut by maxDistance", async () => {
  const user = await makeUser();
  const many = await query(user, { collection: "name", query: "Lantern", nResults: 5 });
  ok(many.length > 1 && many.length <= 5, `${many.length} results`);
  for (let i = 1; i < many.length; i++) ok(many[i - 1]!.distance <= many[i]!.distance);
  ok(many.every((m) => m.distance >= 0 && m.distance <= 1));
  const close = await query(user, {
    collection: "name",
    query: "Lantern",
    nResults: 100,
    maxDistance: 0.45,
  });
  ok(close.length > 0 && close.every((m) => m.distance <= 0.45));
  ok(close.some((m) => m.data.name === "Lantern Flare"));
  ok(!close.some((m) => m.data.name === "Lanternbearer"), "0.53 away, beyond maxDistance");
  deepStrictEqual(
    await query(user, { collection: "name", query: "zzqqxx", nResults: 10, maxDistance: 0.3 }),
    [],
  );
});

test("a where filter restricts results to the given type and metadata", async () => {
  const user = await makeUser();
  const traits = await query(user, {
    collection: "name",
    query: "Lanternbearer",
    nResults: 10,
    where: { _type: "trait" },
  });
  ok(traits.length > 0);
  ok(traits.every((m) => m.data._type === "trait"));
  equal(traits[0]?.data.name, "Lanternbearer");
  const classes = await query(user, {
    collection: "name",
    query: "Lanternbearer",
    where: { _type: { $in: ["class", "ancestry"] }, rarity: "COMMON" },
  });
  deepStrictEqual(classes.map((m) => [m.data._type, m.data.name]), [["class", "Lanternbearer"]]);
  const ranked = await query(user, {
    collection: "name",
    query: "Rime",
    nResults: 10,
    where: { rank: { $eq: 2 } },
  });
  equal(ranked[0]?.data.name, "Rime Veil");
  ok(ranked.every((m) => m.data._type === "spell" && m.data.rank === 2));
  const none = await query(user, {
    collection: "name",
    query: "Rime",
    where: { _type: "spell", content_source_id: 999999 },
  });
  deepStrictEqual(none, []);
});

test("the content collection ranks by full text over name and description", async () => {
  const user = await makeUser();
  const results = await query(user, {
    collection: "content",
    query: "a curtain of frost",
    nResults: 3,
  });
  equal(results[0]?.data.name, "Rime Veil");
  ok(results.every((m) => m.distance > 0 && m.distance < 1));
  const items = await query(user, {
    collection: "content",
    query: "warm glass blade",
    where: { _type: "item" },
  });
  deepStrictEqual(items.map((m) => m.data.name), ["Emberglass Knife"]);
  deepStrictEqual(await query(user, { collection: "content", query: "the and of" }), []);
});

test("only content the caller may read is ever returned", async () => {
  const owner = await makeUser();
  const stranger = await makeUser();
  await homebrewSpell(owner, "Starfall Lullaby");
  const body = { collection: "name", query: "Starfal Lullaby", nResults: 100 };
  const mine = await query(owner, body);
  equal(mine[0]?.data.name, "Starfall Lullaby");
  ok(!(await query(stranger, body)).some((m) => m.data.name === "Starfall Lullaby"));
  const { apiKey } = await makeApiKey(stranger);
  ok(!(await query(apiKey, body)).some((m) => m.data.name === "Starfall Lullaby"));
  const content = await query(stranger, {
    collection: "content",
    query: "stars fall slowly",
    nResults: 100,
  });
  ok(!content.some((m) => m.data.name === "Starfall Lullaby"));
  // The unpublished official source of the seed stays hidden too.
  const hidden = await query(stranger, {
    collection: "name",
    query: "Unfinished Incantation",
    nResults: 100,
  });
  ok(!hidden.some((m) => m.data.content_source_id === 2));
});

test("vector-db-populate-collection reports how many of the ids are indexed and readable", async () => {
  const owner = await makeUser();
  const stranger = await makeUser();
  const { spell } = await homebrewSpell(owner, "Gloaming Chorus");
  const body = { collection: "name", type: "spell", ids: [1, 2, 3, spell] };
  deepStrictEqual(
    successData(await call("vector-db-populate-collection", body, { token: owner.access_token })),
    { indexed: 4 },
  );
  deepStrictEqual(
    successData(
      await call("vector-db-populate-collection", body, { token: stranger.access_token }),
    ),
    { indexed: 3 },
  );
  equal(
    failMessage(
      await call("vector-db-populate-collection", { ...body, ids: [spell] }, {
        token: stranger.access_token,
      }),
    ),
    "No results found",
  );
});

test("similarity endpoints refuse invalid bodies with a fail naming the field", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const queries: [unknown, RegExp][] = [
    [{ query: "x" }, /^Missing required field: collection$/],
    [{ collection: "vectors", query: "x" }, /^Invalid value for collection/],
    [{ collection: "name" }, /^Missing required field: query$/],
    [{ collection: "name", query: "   " }, /^Invalid value for query/],
    [{ collection: "name", query: "x", nResults: 0 }, /^Invalid value for nResults/],
    [{ collection: "name", query: "x", nResults: 101 }, /^Invalid value for nResults/],
    [{ collection: "name", query: "x", nResults: 1.5 }, /^Invalid value for nResults/],
    [{ collection: "name", query: "x", maxDistance: -0.1 }, /^Invalid value for maxDistance/],
    [{ collection: "name", query: "x", where: { _type: "book" } }, /^Invalid value for where/],
    [{ collection: "name", query: "x", where: { color: "red" } }, /^Unknown field: color/],
    [{ collection: "name", query: "x", where: { level: { $gt: 1 } } }, /^Invalid value for where/],
  ];
  for (const [body, expected] of queries) {
    match(failMessage(await call("vector-db-query-collection", body, { token })), expected);
  }
  const populates: [unknown, RegExp][] = [
    [{ collection: "name", type: "content-source", ids: [1] }, /^Invalid value for type/],
    [{ collection: "name", type: "spell", ids: [] }, /^Invalid value for ids/],
    [{ collection: "name", type: "spell" }, /^Missing required field: ids$/],
  ];
  for (const [body, expected] of populates) {
    match(failMessage(await call("vector-db-populate-collection", body, { token })), expected);
  }
  await callSignedOut("vector-db-query-collection", { collection: "name", query: "x" });
});

test("every table's name and content queries use their indexes instead of scanning", async () => {
  for (const { table } of Object.values(similarityTables)) {
    const plans = await adminSql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      const nearest = await tx.unsafe(`explain select id from public.${table} t
        order by t.name operator(extensions.<->) 'Whisperd Erand' limit 5`);
      const text = await tx.unsafe(`explain select id from public.${table} t
        where t.search_vector @@ 'frost'::tsquery`);
      return [nearest, text].map((rows) => rows.map((r) => r["QUERY PLAN"]).join("\n"));
    });
    match(plans[0]!, new RegExp(`${table}_name_similarity_idx`));
    match(plans[1]!, new RegExp(`${table}_search_vector_idx`));
  }
});

test("similarity results write timestamps in the Z form, exactly as find-spell does", async () => {
  const owner = await makeUser();
  const { spell } = await homebrewSpell(owner, `Zulu Clockwork ${crypto.randomUUID()}`);
  // A text field that looks like a timestamp is the author's text and stays as written.
  const lookalike = "2026-01-02T03:04:05.5+00:00";
  await adminSql`update public.spell set duration = ${lookalike} where id = ${spell}`;
  const [found] = await query(owner, {
    collection: "name",
    query: "Zulu Clockwork",
    where: { id: spell },
  });
  ok(found, "a result");
  const direct = successData(
    await call("find-spell", { id: spell }, { token: owner.access_token }),
  );
  for (const key of ["created_at", "updated_at"]) {
    match(String(found.data[key]), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, key);
    equal(found.data[key], direct[key], key);
  }
  equal(found.data.duration, lookalike);
});
