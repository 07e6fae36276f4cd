import { deepStrictEqual, equal, notEqual } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  freshToken,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";

// deno-lint-ignore no-explicit-any -- tests read arbitrary fields of the data
async function makeCharacter(user: TestUser, body: Record<string, unknown> = {}): Promise<any> {
  return successData(
    await call("create-character", { name: "Hero", ...body }, { token: await freshToken(user) }),
  );
}

async function makeCampaign(gm: TestUser): Promise<{ id: number; join_key: string }> {
  return successData(
    await call("create-campaign", { name: "Table" }, { token: await freshToken(gm) }),
  );
}

/** Puts the player's character into the GM's campaign through the join-key flow. */
async function join(
  player: TestUser,
  characterId: number,
  campaign: { id: number; join_key: string },
) {
  const token = await freshToken(player);
  successData(await call("find-campaign", { join_key: campaign.join_key }, { token }));
  const [joined] = successData(
    await call("update-character", { id: characterId, campaign_id: campaign.id }, { token }),
  );
  equal(joined.campaign_id, campaign.id);
}

test("update-character writes only the given fields and returns the character", async () => {
  const user = await makeUser();
  const created = await makeCharacter(user, { notes: { a: 1 }, hp_current: 5 });
  const [updated] = successData(
    await call("update-character", {
      id: created.id,
      level: 2,
      details: { class: "wizard" },
      custom_operations: [{ op: 1 }],
      unknown_key: "ignored",
    }, { token: user.access_token }),
  );
  equal(updated.level, 2);
  deepStrictEqual(updated.details, { class: "wizard" });
  deepStrictEqual(updated.custom_operations, [{ op: 1 }]);
  deepStrictEqual(updated.notes, { a: 1 });
  equal(updated.hp_current, 5);
  equal(updated.created_at, created.created_at);
  notEqual(updated.updated_at, created.updated_at);
  equal("unknown_key" in updated, false);
});

test("update-character requires an id", async () => {
  const user = await makeUser();
  equal(
    failMessage(await call("update-character", { level: 2 }, { token: user.access_token })),
    "Missing required field: id",
  );
});

test("update-character with a current expected_updated_at writes; a stale one answers __conflict", async () => {
  const user = await makeUser();
  const created = await makeCharacter(user);
  const [first] = successData(
    await call("update-character", {
      id: created.id,
      hp_current: 10,
      expected_updated_at: created.updated_at,
    }, { token: user.access_token }),
  );
  equal(first.hp_current, 10);
  const stale = await call("update-character", {
    id: created.id,
    hp_current: 99,
    expected_updated_at: created.updated_at,
  }, { token: user.access_token });
  const conflict = successData(stale);
  equal(conflict.__conflict, true);
  equal(conflict.character.id, created.id);
  equal(stale.body.data.character.hp_current, 10);
  equal(stale.body.data.character.updated_at, first.updated_at);
  const [row] = await adminSql<{ hp_current: number }[]>`
    select hp_current from public.character where id = ${created.id}`;
  equal(row?.hp_current, 10, "nothing was written");
});

test("update-character answers __forbidden NOT_VISIBLE or WRITE_DENIED and writes nothing", async () => {
  const owner = await makeUser();
  const other = await makeUser();
  const hidden = await makeCharacter(owner);
  const shown = await makeCharacter(owner, { options: { is_public: true } });
  deepStrictEqual(
    successData(
      await call("update-character", { id: hidden.id, level: 3 }, { token: other.access_token }),
    ),
    { __forbidden: true, reason: "NOT_VISIBLE" },
  );
  deepStrictEqual(
    successData(
      await call("update-character", { id: shown.id, level: 3 }, { token: other.access_token }),
    ),
    { __forbidden: true, reason: "WRITE_DENIED" },
  );
  const [kept] = await adminSql<{ level: number }[]>`
    select level from public.character where id = ${shown.id}`;
  equal(kept?.level, 1, "a refused write changes nothing");
  equal(
    failMessage(
      await call("create-character", { id: shown.id, level: 3 }, { token: other.access_token }),
    ),
    "You do not have access to this character",
  );
  deepStrictEqual(
    successData(
      await call("update-character", { id: 987654321, level: 3 }, { token: other.access_token }),
    ),
    { __forbidden: true, reason: "NOT_VISIBLE" },
  );
});

test("find-character: {} gives the caller's own; a single id gives the object or null", async () => {
  const user = await makeUser();
  const other = await makeUser();
  const mine = await makeCharacter(user);
  const theirs = await makeCharacter(other);
  const listed = successData(await call("find-character", {}, { token: user.access_token }));
  deepStrictEqual(listed.map((c: { id: number }) => c.id), [mine.id]);
  equal(
    successData(await call("find-character", { id: mine.id }, { token: user.access_token })).id,
    mine.id,
  );
  equal(
    successData(await call("find-character", { id: theirs.id }, { token: user.access_token })),
    null,
  );
  deepStrictEqual(
    successData(
      await call("find-character", { id: [mine.id, theirs.id] }, { token: user.access_token }),
    )
      .map((c: { id: number }) => c.id),
    [mine.id],
  );
});

test("find-character: public characters of others are reachable by id only", async () => {
  const owner = await makeUser();
  const other = await makeUser();
  const shown = await makeCharacter(owner, { options: { is_public: true } });
  const token = other.access_token;
  equal(successData(await call("find-character", { id: shown.id }, { token })).id, shown.id);
  deepStrictEqual(successData(await call("find-character", {}, { token })), []);
  deepStrictEqual(
    successData(await call("find-character", { user_id: owner.user_id }, { token })),
    [],
  );
});

test("find-character: a GM reads and writes the campaign's characters; players see only their own", async () => {
  const gm = await makeUser({ tier: 1 });
  const alice = await makeUser();
  const bob = await makeUser();
  const campaign = await makeCampaign(gm);
  const a = await makeCharacter(alice);
  const b = await makeCharacter(bob);
  await join(alice, a.id, campaign);
  await join(bob, b.id, campaign);

  const gmToken = await freshToken(gm);
  deepStrictEqual(
    successData(await call("find-character", { campaign_id: campaign.id }, { token: gmToken }))
      .map((c: { id: number }) => c.id),
    [a.id, b.id],
  );
  equal(
    successData(await call("update-character", { id: a.id, hp_current: 3 }, { token: gmToken }))[0]
      .hp_current,
    3,
  );
  const aliceToken = await freshToken(alice);
  deepStrictEqual(
    successData(await call("find-character", { campaign_id: campaign.id }, { token: aliceToken }))
      .map((c: { id: number }) => c.id),
    [a.id],
  );
  equal(successData(await call("find-character", { id: b.id }, { token: aliceToken })), null);
  // The GM's own list stays their own characters.
  deepStrictEqual(successData(await call("find-character", {}, { token: gmToken })), []);
});

test("an admin can read and write any character", async () => {
  const admin = await makeUser({ admin: true });
  const owner = await makeUser();
  const c = await makeCharacter(owner);
  const token = await freshToken(admin);
  equal(successData(await call("find-character", { id: c.id }, { token })).id, c.id);
  equal(successData(await call("update-character", { id: c.id, level: 7 }, { token }))[0].level, 7);
});

test("deleting an account deletes its characters", async () => {
  const user = await makeUser();
  const c = await makeCharacter(user);
  await adminSql`delete from auth.users where id = ${user.user_id}::uuid`;
  const rows = await adminSql`select id from public.character where id = ${c.id}`;
  equal(rows.length, 0);
});
