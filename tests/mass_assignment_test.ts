/**
 * Mass assignment: bodies that try to set what the server owns (the owner, timestamps, role flags,
 * the supporter tier, another user's record, a content source the caller does not own) never take
 * effect. Every case reads the stored rows back as the database owner.
 */
import { equal, notEqual, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  type CallResult,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";

const LONG_AGO = "2001-02-03T04:05:06.000Z";
const FAR_AHEAD = "2099-02-03T04:05:06.000Z";

/** Keys a client might add hoping the server copies them into the row. */
function forged(other: TestUser): Record<string, unknown> {
  return { ...serverOwned(other), is_admin: true, supporter_tier: 4 };
}

/** The owner and timestamps alone: content bodies accept these keys and ignore them. */
function serverOwned(other: TestUser): Record<string, unknown> {
  return { user_id: other.user_id, created_at: LONG_AGO, updated_at: FAR_AHEAD };
}

/** A timestamp the server set just now, not one a body carried. */
function recent(value: string): void {
  const at = new Date(value).getTime();
  ok(Math.abs(Date.now() - at) < 5 * 60_000, `timestamp ${String(value)} was set by the server`);
}

/** A refused call: a JSend fail, or a 4xx. Never a success. */
function refused(res: CallResult): void {
  ok(
    res.body?.status === "fail",
    `expected a refusal, got HTTP ${res.status} ${JSON.stringify(res.body)}`,
  );
}

async function row<T>(query: Promise<T[]>): Promise<T> {
  const [found] = await query;
  if (!found) throw new Error("Expected a row");
  return found;
}

test("create-character and update-character ignore the owner, timestamps and role keys", async () => {
  const caller = await makeUser();
  const other = await makeUser();
  const created = await call("create-character", { name: "Mine", ...forged(other) }, {
    token: caller.access_token,
  });
  const id = successData(created).id;
  const stored = await row(
    adminSql<{ user_id: string; created_at: string; updated_at: string }[]>`
    select user_id::text, created_at, updated_at from public.character where id = ${id}`,
  );
  equal(stored.user_id, caller.user_id);
  recent(stored.created_at);
  recent(stored.updated_at);

  const before = stored.created_at;
  const updated = await call("update-character", { id, hp_current: 7, ...forged(other) }, {
    token: caller.access_token,
  });
  const after = await row(adminSql<{ user_id: string; created_at: string; updated_at: string }[]>`
    select user_id::text, created_at, updated_at from public.character where id = ${id}`);
  equal(after.user_id, caller.user_id, JSON.stringify(updated.body));
  equal(after.created_at, before);
  recent(after.updated_at);
  const { n } = await row(adminSql<{ n: number }[]>`
    select count(*)::int as n from public.character where user_id = ${other.user_id}::uuid`);
  equal(n, 0, "nothing was created for the other user");
});

test("another user's character id, in create-character or update-character, writes nothing", async () => {
  const caller = await makeUser();
  const other = await makeUser();
  const theirs = successData(
    await call("create-character", { name: "Theirs", hp_current: 10 }, {
      token: other.access_token,
    }),
  );
  for (const fn of ["create-character", "update-character"]) {
    const res = await call(fn, {
      id: theirs.id,
      name: "Taken",
      hp_current: 0,
      user_id: caller.user_id,
    }, { token: caller.access_token });
    // update-character answers a refusal as the web client reads it: success `__forbidden`.
    if (res.body?.data?.__forbidden !== true) refused(res);
  }
  const stored = await row(adminSql<{ name: string; hp_current: number; user_id: string }[]>`
    select name, hp_current, user_id::text from public.character where id = ${theirs.id}`);
  equal(stored.name, "Theirs");
  equal(stored.hp_current, 10);
  equal(stored.user_id, other.user_id);
});

test("update-user cannot raise the tier, set role flags, or touch another profile", async () => {
  const caller = await makeUser();
  const other = await makeUser({ tier: 1 });
  const snapshot = (userId: string) =>
    row(adminSql<Record<string, unknown>[]>`
      select user_id::text, id, created_at, display_name, supporter_tier, is_admin, is_mod,
             is_developer, is_community_paragon, deactivated
      from public.public_user where user_id = ${userId}::uuid`);
  const [mineBefore, theirsBefore] = await Promise.all([
    snapshot(caller.user_id),
    snapshot(other.user_id),
  ]);
  const res = await call("update-user", {
    display_name: "Renamed",
    ...forged(other),
    id: theirsBefore.id,
    is_mod: true,
    is_developer: true,
    is_community_paragon: true,
    deactivated: true,
    patreon: { tier: "GAME-MASTER" },
  }, { token: caller.access_token });
  ok(res.status === 200, JSON.stringify(res.body));
  const [mineAfter, theirsAfter] = await Promise.all([
    snapshot(caller.user_id),
    snapshot(other.user_id),
  ]);
  for (const column of Object.keys(mineBefore)) {
    if (column === "display_name") continue;
    equal(String(mineAfter[column]), String(mineBefore[column]), `my ${column} is unchanged`);
  }
  for (const column of Object.keys(theirsBefore)) {
    equal(
      String(theirsAfter[column]),
      String(theirsBefore[column]),
      `their ${column} is unchanged`,
    );
  }
  if (res.body.status === "success") equal(mineAfter.display_name, "Renamed");
});

test("create-content-source keeps the caller as owner and cannot take over another's source", async () => {
  const caller = await makeUser({ tier: 2 });
  const other = await makeUser({ tier: 2 });
  const theirs = successData(
    await call("create-content-source", { name: "Their book" }, { token: other.access_token }),
  );
  // Claiming another owner, or none (an official book), still makes the caller's own source.
  for (const owner of [other.user_id, null]) {
    const res = await call("create-content-source", {
      name: "My book",
      ...serverOwned(other),
      user_id: owner,
    }, {
      token: caller.access_token,
    });
    if (res.body.status !== "success") {
      refused(res);
      continue;
    }
    const stored = await row(
      adminSql<{ user_id: string | null; created_at: string; updated_at: string }[]>`
      select user_id::text, created_at, updated_at from public.content_source
      where id = ${res.body.data.id}`,
    );
    equal(stored.user_id, caller.user_id);
    recent(stored.created_at);
    recent(stored.updated_at);
  }
  refused(
    await call("create-content-source", { id: theirs.id, name: "Taken", user_id: caller.user_id }, {
      token: caller.access_token,
    }),
  );
  const stored = await row(adminSql<{ name: string; user_id: string }[]>`
    select name, user_id::text from public.content_source where id = ${theirs.id}`);
  equal(stored.name, "Their book");
  equal(stored.user_id, other.user_id);
});

test("content goes only into a source the caller owns, and never moves to another", async () => {
  const caller = await makeUser({ tier: 2 });
  const other = await makeUser({ tier: 2 });
  const mine = successData(
    await call("create-content-source", { name: "My spells" }, { token: caller.access_token }),
  );
  const theirs = successData(
    await call("create-content-source", { name: "Their spells" }, { token: other.access_token }),
  );
  const theirSpell = successData(
    await call("create-spell", { content_source_id: theirs.id, name: "Their spell", rank: 1 }, {
      token: other.access_token,
    }),
  );
  const [official] = await adminSql<{ id: number }[]>`
    select id from public.content_source where user_id is null order by id limit 1`;
  const count = async () =>
    (await row(adminSql<{ n: number }[]>`
      select count(*)::int as n from public.spell
      where content_source_id = any(${[theirs.id, official!.id]}::bigint[])`)).n;
  const before = await count();

  for (const sourceId of [theirs.id, official!.id]) {
    refused(
      await call("create-spell", { content_source_id: sourceId, name: "Planted", rank: 1 }, {
        token: caller.access_token,
      }),
    );
  }
  refused(
    await call("create-spell", { id: theirSpell.id, name: "Rewritten", rank: 9 }, {
      token: caller.access_token,
    }),
  );
  equal(await count(), before, "no spell landed in a source the caller does not own");
  const stillTheirs = await row(adminSql<{ name: string; rank: number }[]>`
    select name, rank from public.spell where id = ${theirSpell.id}`);
  equal(stillTheirs.name, "Their spell");
  equal(stillTheirs.rank, 1);

  // The caller's own spell keeps its source and server-set fields whatever the body says.
  const own = successData(
    await call("create-spell", {
      content_source_id: mine.id,
      name: "Mine",
      rank: 2,
      ...serverOwned(other),
    }, {
      token: caller.access_token,
    }),
  );
  await call("create-spell", {
    id: own.id,
    content_source_id: theirs.id,
    ...serverOwned(other),
    rank: 3,
  }, {
    token: caller.access_token,
  });
  const stored = await row(
    adminSql<{ content_source_id: number; created_at: string; updated_at: string }[]>`
    select content_source_id, created_at, updated_at from public.spell where id = ${own.id}`,
  );
  equal(Number(stored.content_source_id), mine.id);
  recent(stored.created_at);
  recent(stored.updated_at);
  notEqual(stored.created_at, LONG_AGO);
});

test("create-campaign, create-encounter and create-api-client belong to the caller", async () => {
  const caller = await makeUser({ tier: 1 });
  const other = await makeUser({ tier: 1 });
  const cases: [string, Record<string, unknown>, string][] = [
    ["create-campaign", { name: "Mine" }, "campaign"],
    [
      "create-encounter",
      { name: "Mine", icon: "x", color: "red", combatants: { list: [] }, meta_data: {} },
      "encounter",
    ],
    ["create-api-client", { name: "Mine" }, "api_client"],
  ];
  for (const [fn, body, table] of cases) {
    const res = await call(fn, { ...body, ...forged(other) }, { token: caller.access_token });
    const { n } = await row(adminSql.unsafe<{ n: number }[]>(
      `select count(*)::int as n from public.${table} where user_id = $1::uuid`,
      [other.user_id],
    ));
    equal(n, 0, `${fn} made nothing for the other user`);
    const created = successData(res);
    const stored = await row(adminSql.unsafe<{ user_id: string; created_at: string }[]>(
      `select user_id::text, created_at from public.${table} where id = $1`,
      [created.id],
    ));
    equal(stored.user_id, caller.user_id, fn);
    recent(stored.created_at);
  }
  // Another user's campaign cannot be renamed by id.
  const theirs = successData(
    await call("create-campaign", { name: "Theirs" }, { token: other.access_token }),
  );
  refused(
    await call("create-campaign", { id: theirs.id, name: "Taken", user_id: caller.user_id }, {
      token: caller.access_token,
    }),
  );
  const stored = await row(adminSql<{ name: string; user_id: string }[]>`
    select name, user_id::text from public.campaign where id = ${theirs.id}`);
  equal(stored.name, "Theirs");
  equal(stored.user_id, other.user_id);
});
