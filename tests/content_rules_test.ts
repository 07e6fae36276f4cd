import { deepStrictEqual, equal, match, notEqual, ok, rejects } from "node:assert/strict";
import {
  AbilityBlockActions,
  AbilityBlockType,
  Availability,
  ItemGroup,
  ItemSize,
  Rarity,
} from "@shared/enums.ts";
import { DeletableType } from "@shared/content/delete_content.ts";
import {
  adminSql,
  call,
  failMessage,
  freshToken,
  makeApiKey,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";

// Rules of reference content beyond the per-type round trips: enums, the tier cap on homebrew
// sources, spell rank, updated_at bookkeeping, protected fields, API keys, delete-content, the
// seed's hidden source, name matching and the result cap.

async function homebrewSource(
  user: TestUser,
  body: Record<string, unknown> = {},
): Promise<{ id: number; updated_at: string }> {
  return successData(
    await call("create-content-source", { name: `Book ${crypto.randomUUID()}`, ...body }, {
      token: await freshToken(user),
    }),
  );
}

test("Postgres enum types carry exactly the values of the shared zod enums", async () => {
  const pairs: [string, readonly string[]][] = [
    ["public.rarity", Rarity.options],
    ["public.availability", Availability.options],
    ["public.item_group", ItemGroup.options],
    ["public.item_size", ItemSize.options],
    ["public.ability_block_type", AbilityBlockType.options],
    ["public.ability_block_actions", AbilityBlockActions.options],
  ];
  for (const [type, options] of pairs) {
    const rows = await adminSql.unsafe(`select unnest(enum_range(null::${type}))::text as v`);
    deepStrictEqual(rows.map((r) => r.v), [...options], type);
  }
});

test("create-content-source: a new homebrew source needs supporter tier 2", async () => {
  for (const tier of [0, 1]) {
    const user = await makeUser({ tier });
    const res = await call("create-content-source", { name: "Mine" }, {
      token: user.access_token,
    });
    equal(
      failMessage(res),
      "User does not have access: creating a homebrew content source requires supporter tier 2 or higher",
    );
    equal(res.body.data.required_tier, 2);
  }
  const supporter = await makeUser({ tier: 2 });
  const other = await makeUser({ tier: 2 });
  const created = successData(
    await call("create-content-source", { name: "Mine", user_id: other.user_id }, {
      token: supporter.access_token,
    }),
  );
  equal(created.user_id, supporter.user_id, "the owner is the caller, whatever the body says");
  // Updates need ownership, not a tier, and never move the source to someone else.
  await adminSql`update public.public_user set supporter_tier = 0
    where user_id = ${supporter.user_id}`;
  const edited = successData(
    await call(
      "create-content-source",
      { id: created.id, name: "Renamed", user_id: other.user_id },
      {
        token: supporter.access_token,
      },
    ),
  );
  equal(edited.name, "Renamed");
  equal(edited.user_id, supporter.user_id);
  // Admins are exempt from the cap.
  const admin = await makeUser({ admin: true });
  successData(
    await call("create-content-source", { name: "Admin's" }, { token: admin.access_token }),
  );
});

test("create-content-source answers the source as stored, its access key to the owner alone", async () => {
  const owner = await makeUser({ tier: 2 });
  const opt = { token: owner.access_token };
  const created = successData(
    await call("create-content-source", {
      name: "Locked",
      require_key: true,
      keys: { access_key: "first-key" },
      foundry_id: "f-1",
    }, opt),
  );
  deepStrictEqual(created.keys, { access_key: "first-key" });
  equal(created.external_id, "f-1");
  equal(created.foundry_id, "f-1");
  const renamed = successData(
    await call("create-content-source", { id: created.id, name: "Still locked" }, opt),
  );
  deepStrictEqual(renamed.keys, { access_key: "first-key" }, "an edit of other columns keeps it");
  const rekeyed = successData(
    await call("create-content-source", {
      id: created.id,
      keys: { access_key: "second-key" },
    }, opt),
  );
  deepStrictEqual(rekeyed.keys, { access_key: "second-key" });
  equal(rekeyed.name, "Still locked");
  const stored = successData(await call("find-content-source", { id: created.id }, opt));
  deepStrictEqual(stored, rekeyed, "the answer is the row a find reads");
  // A refused save writes nothing: a short key on a key-locked source.
  match(
    failMessage(
      await call("create-content-source", { id: created.id, keys: { access_key: "short" } }, opt),
    ),
    /access key of at least 8 characters/,
  );
  const other = await makeUser({ tier: 2 });
  equal(
    failMessage(
      await call("create-content-source", { id: created.id, name: "Taken" }, {
        token: other.access_token,
      }),
    ),
    "Content source not found",
  );
  deepStrictEqual(successData(await call("find-content-source", { id: created.id }, opt)), rekeyed);
});

test("create-spell refuses rank -1 and 11, and the database refuses them too", async () => {
  const user = await makeUser({ tier: 2 });
  const source = await homebrewSource(user);
  const opt = { token: user.access_token };
  for (const rank of [-1, 11]) {
    match(
      failMessage(
        await call("create-spell", { name: "Bad", rank, content_source_id: source.id }, opt),
      ),
      /^Invalid value for rank: /,
    );
  }
  for (const rank of [0, 10]) {
    equal(
      successData(
        await call("create-spell", { name: "Ok", rank, content_source_id: source.id }, opt),
      )
        .rank,
      rank,
    );
  }
  for (const rank of [-1, 11]) {
    await rejects(
      adminSql`insert into public.spell (name, rank, content_source_id)
        values ('Direct', ${rank}, ${source.id})`,
      (e: { code?: string; constraint_name?: string }) =>
        e.code === "23514" && e.constraint_name === "spell_rank_range",
    );
    await rejects(
      adminSql`update public.spell set rank = ${rank} where id = 1`,
      (e: { code?: string }) => e.code === "23514",
    );
  }
});

test("updated_at moves on a real edit, stays on a no-op edit, and every edit bumps the source", async () => {
  const user = await makeUser({ tier: 2 });
  const token = await freshToken(user);
  const opt = { token };
  const source = await homebrewSource(user);
  const readSource = async () =>
    successData(await call("find-content-source", { id: source.id }, opt)).updated_at as string;

  const spell = successData(
    await call("create-spell", { name: "Tick", rank: 1, content_source_id: source.id }, opt),
  );
  const afterInsert = await readSource();
  notEqual(afterInsert, source.updated_at, "an insert bumps the source");

  const same = successData(
    await call("create-spell", { id: spell.id, name: "Tick", rank: 1 }, opt),
  );
  equal(same.updated_at, spell.updated_at, "a no-op edit leaves updated_at");
  equal(await readSource(), afterInsert, "a no-op edit leaves the source");

  const edited = successData(await call("create-spell", { id: spell.id, rank: 2 }, opt));
  notEqual(edited.updated_at, spell.updated_at);
  ok(edited.updated_at > spell.updated_at);
  equal(edited.created_at, spell.created_at);
  const afterEdit = await readSource();
  ok(afterEdit > afterInsert, "a real edit bumps the source");

  successData(await call("delete-content", { type: "spell", id: spell.id }, opt));
  ok((await readSource()) > afterEdit, "a delete bumps the source");

  // The source's own no-op edit leaves it too.
  const before = await readSource();
  const sourceRow = successData(await call("find-content-source", { id: source.id }, opt));
  successData(await call("create-content-source", { id: source.id, name: sourceRow.name }, opt));
  equal(await readSource(), before);
});

test("create-<type> never writes id, timestamps, owner, or (on update) content_source_id", async () => {
  const user = await makeUser({ tier: 2 });
  const opt = { token: user.access_token };
  const a = await homebrewSource(user);
  const b = await homebrewSource(user);
  const spell = successData(
    await call("create-spell", {
      name: "Guarded",
      rank: 1,
      content_source_id: a.id,
      created_at: "2000-01-01T00:00:00Z",
      updated_at: "2000-01-01T00:00:00Z",
      user_id: crypto.randomUUID(),
    }, opt),
  );
  ok(spell.created_at > "2001");
  ok(spell.updated_at > "2001");
  const moved = successData(
    await call("create-spell", { id: spell.id, content_source_id: b.id, rank: 4 }, opt),
  );
  equal(moved.content_source_id, a.id, "content never changes source");
  equal(moved.rank, 4);
  match(
    failMessage(
      await call("create-spell", { name: "x", rank: 1, content_source_id: a.id, nonsense: 1 }, opt),
    ),
    /^Unknown field: nonsense\. Accepted: .*\bname\b/,
  );
  equal(
    failMessage(await call("create-spell", { name: "x", rank: 1 }, opt)),
    "Missing required field: content_source_id",
  );
  equal(
    failMessage(await call("create-spell", { rank: 1, content_source_id: a.id }, opt)),
    "Missing required field: name",
  );
});

test("find-spell: a revoked API key gets 401 Invalid API Key, no client found", async () => {
  const user = await makeUser();
  const { clientId, apiKey } = await makeApiKey(user);
  successData(await call("find-spell", { id: 1 }, { token: apiKey }));
  successData(await call("delete-api-client", { id: clientId }, { token: user.access_token }));
  equal(
    failMessage(await call("find-spell", { id: 1 }, { token: apiKey }), 401),
    "Invalid API Key, no client found",
  );
});

test("find-spell: an API key sees exactly what its owner's JWT sees", async () => {
  const owner = await makeUser({ tier: 2 });
  const reader = await makeUser({ tier: 2 });
  const published = await homebrewSource(owner, { is_published: true });
  const unpublished = await homebrewSource(owner, { is_published: false });
  const own = await homebrewSource(reader, { is_published: false });
  for (const [source, user] of [[published, owner], [unpublished, owner], [own, reader]] as const) {
    successData(
      await call("create-spell", { name: "Shared", rank: 1, content_source_id: source.id }, {
        token: user.access_token,
      }),
    );
  }
  const all = [1, 2, published.id, unpublished.id, own.id];
  const { apiKey } = await makeApiKey(reader);
  for (
    const body of [{}, { content_sources: all }, { name: "shared", content_sources: all }, {
      id: [1, 2, 3, 4, 5, 6, 7, 8],
    }]
  ) {
    const viaJwt = successData(await call("find-spell", body, { token: reader.access_token }));
    const viaKey = successData(await call("find-spell", body, { token: apiKey }));
    deepStrictEqual(viaKey, viaJwt, JSON.stringify(body));
  }
  const sources = successData(
    await call("find-spell", { content_sources: all }, { token: apiKey }),
  ).map((s: { content_source_id: number }) => s.content_source_id);
  ok(sources.includes(published.id) && sources.includes(own.id) && sources.includes(1));
  ok(!sources.includes(unpublished.id) && !sources.includes(2));
});

test("delete-content: every type, owner only; others are refused, missing rows not found", async () => {
  const owner = await makeUser({ tier: 2 });
  const other = await makeUser({ tier: 2 });
  const ownerToken = await freshToken(owner);
  const source = await homebrewSource(owner, { is_published: true });
  const hidden = await homebrewSource(owner, { is_published: false });
  const samples: Record<
    Exclude<DeletableType, "content-source" | "encounter" | "character" | "campaign">,
    Record<string, unknown>
  > = {
    "trait": {},
    "item": {},
    "spell": { rank: 1 },
    "class": {},
    "archetype": {},
    "versatile-heritage": {},
    "class-archetype": {},
    "ability-block": { type: "feat" },
    "creature": {},
    "hazard": {},
    "ancestry": {},
    "background": {},
    "language": {},
  };
  for (const [type, sample] of Object.entries(samples)) {
    const row = successData(
      await call(`create-${type}`, {
        name: `Doomed ${type}`,
        content_source_id: source.id,
        ...sample,
      }, {
        token: ownerToken,
      }),
    );
    const quiet = successData(
      await call(`create-${type}`, {
        name: `Quiet ${type}`,
        content_source_id: hidden.id,
        ...sample,
      }, {
        token: ownerToken,
      }),
    );
    equal(
      failMessage(
        await call("delete-content", { type, id: row.id }, { token: other.access_token }),
      ),
      "You do not have access to this content",
      `${type}: visible but not the caller's`,
    );
    equal(
      failMessage(
        await call("delete-content", { type, id: quiet.id }, { token: other.access_token }),
      ),
      "Content not found",
      `${type}: not visible`,
    );
    equal(
      successData(await call("delete-content", { type, id: row.id }, { token: ownerToken })),
      true,
    );
    equal(
      failMessage(await call("delete-content", { type, id: row.id }, { token: ownerToken })),
      "Content not found",
    );
  }
  // Deleting a source takes its content with it.
  const spell = successData(
    await call("create-spell", { name: "Goes too", rank: 1, content_source_id: hidden.id }, {
      token: ownerToken,
    }),
  );
  equal(
    successData(
      await call("delete-content", { type: "content-source", id: hidden.id }, {
        token: ownerToken,
      }),
    ),
    true,
  );
  equal((await adminSql`select id from public.spell where id = ${spell.id}`).length, 0);
  // Official content: admins only.
  const admin = await makeUser({ admin: true });
  const official = successData(
    await call("create-background", { name: "Short-lived", content_source_id: 1 }, {
      token: admin.access_token,
    }),
  );
  equal(
    failMessage(
      await call("delete-content", { type: "background", id: official.id }, {
        token: owner.access_token,
      }),
    ),
    "You do not have access to this content",
  );
  equal(
    successData(
      await call("delete-content", { type: "background", id: official.id }, {
        token: admin.access_token,
      }),
    ),
    true,
  );
  match(
    failMessage(
      await call("delete-content", { type: "book", id: 1 }, { token: admin.access_token }),
    ),
    /^Invalid value for type/,
  );
});

test("the seed's unpublished official source stays hidden from every find", async () => {
  const user = await makeUser();
  const token = await freshToken(user);
  const hidden: Record<string, number> = {
    "trait": 8,
    "item": 4,
    "spell": 4,
    "class": 2,
    "class-archetype": 2,
    "ability-block": 6,
    "versatile-heritage": 2,
    "language": 3,
    "ancestry": 2,
    "archetype": 2,
    "background": 3,
    "creature": 3,
    "hazard": 2,
    "content-source": 2,
  };
  for (const [type, id] of Object.entries(hidden)) {
    equal(successData(await call(`find-${type}`, { id }, { token })), null, `find-${type} by id`);
    const listed = successData(await call(`find-${type}`, { content_sources: [2] }, { token }));
    deepStrictEqual(listed, [], `find-${type} listing the hidden source`);
    const all = successData(await call(`find-${type}`, {}, { token }));
    ok(all.length > 0, `find-${type} shows the published seed`);
    ok(all.every((r: { id: number }) => r.id !== id), `find-${type} default`);
  }
});

test("find name matching is exact: % and _ are plain characters", async () => {
  const user = await makeUser({ tier: 2 });
  const opt = { token: user.access_token };
  const source = await homebrewSource(user);
  const spell = successData(
    await call(
      "create-spell",
      { name: "100% Sure_Thing", rank: 1, content_source_id: source.id },
      opt,
    ),
  );
  const find = async (name: string) =>
    successData(await call("find-spell", { name, content_sources: [source.id] }, opt)).map((
      r: { id: number },
    ) => r.id);
  deepStrictEqual(await find("100% sure_thing"), [spell.id]);
  deepStrictEqual(await find("100%"), []);
  deepStrictEqual(await find("%"), []);
  deepStrictEqual(await find("100% Sure Thing"), []);
  deepStrictEqual(await find("100_ Sure_Thing"), []);
});

test("a find without id answers every row it matches, past 5,000, in one JSend envelope", async () => {
  const user = await makeUser({ tier: 2 });
  const source = await homebrewSource(user);
  await adminSql`insert into public.trait (name, content_source_id)
    select 'Bulk ' || lpad(n::text, 5, '0'), ${source.id} from generate_series(1, 5001) n`;
  const res = await call("find-trait", { content_sources: [source.id] }, {
    token: user.access_token,
  });
  const found = successData(res);
  equal(found.length, 5001);
  equal(found[0].name, "Bulk 00001");
  equal(found[5000].name, "Bulk 05001");
  ok(res.headers.get("x-request-id"));
  ok(res.headers.get("x-ratelimit-remaining"));
});
