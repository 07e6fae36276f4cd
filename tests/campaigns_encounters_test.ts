import { deepStrictEqual, equal } from "node:assert/strict";
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

const ENCOUNTER = {
  name: "Goblin ambush",
  icon: "sword",
  color: "#aa3300",
  combatants: {
    list: [
      { _id: "c1", type: "CREATURE", ally: false, initiative: 12, creature: { name: "Goblin" } },
      { _id: "c2", type: "CHARACTER", ally: true, character: 1, data: { hp: 20 } },
    ],
  },
  meta_data: { description: "Ambush at the ford", party_level: 1, party_size: 4 },
};

// deno-lint-ignore no-explicit-any -- tests read arbitrary fields of the data
async function makeEncounter(user: TestUser, extra: Record<string, unknown> = {}): Promise<any> {
  return successData(
    await call("create-encounter", { ...ENCOUNTER, ...extra }, { token: await freshToken(user) }),
  );
}

test("create-encounter is refused at tier 0 and allowed at tier 1", async () => {
  const free = await makeUser({ tier: 0 });
  const refused = await call("create-encounter", ENCOUNTER, { token: free.access_token });
  equal(
    failMessage(refused),
    "User does not have access: creating an encounter requires supporter tier 1 or higher",
  );
  equal(refused.body.data.required_tier, 1);
  const gm = await makeUser({ tier: 1 });
  const created = await makeEncounter(gm, { id: -1 });
  equal(created.user_id, gm.user_id);
  equal(created.campaign_id, null);
  deepStrictEqual(created.combatants, ENCOUNTER.combatants);
  deepStrictEqual(created.meta_data, ENCOUNTER.meta_data);
});

test("create-encounter needs a name, and combatants.list to be a list of objects", async () => {
  const gm = await makeUser({ tier: 1 });
  const { name: _name, ...withoutName } = ENCOUNTER;
  equal(
    failMessage(await call("create-encounter", withoutName, { token: gm.access_token })),
    "Missing required field: name",
  );
  equal(
    failMessage(
      await call("create-encounter", { ...ENCOUNTER, combatants: { list: ["x"] } }, {
        token: gm.access_token,
      }),
    ),
    "Invalid value for combatants.list.0: invalid input: expected record, received string",
  );
});

test("create-encounter with id updates the owner's encounter; a foreign id is refused", async () => {
  const gm = await makeUser({ tier: 1 });
  const other = await makeUser({ tier: 1 });
  const created = await makeEncounter(gm);
  const updated = successData(
    await call("create-encounter", { id: created.id, name: "Renamed" }, { token: gm.access_token }),
  );
  equal(updated.name, "Renamed");
  equal(updated.color, ENCOUNTER.color);
  equal(
    failMessage(
      await call("create-encounter", { id: created.id, name: "Stolen" }, {
        token: other.access_token,
      }),
    ),
    "You do not have access to this encounter",
  );
  // A free account may still edit an encounter it already has: only new ones are capped.
  const lapsed = await makeUser({ tier: 1 });
  const kept = await makeEncounter(lapsed);
  await adminSql`update public.public_user set supporter_tier = 0
                 where user_id = ${lapsed.user_id}::uuid`;
  equal(
    successData(
      await call("create-encounter", { id: kept.id, color: "blue" }, {
        token: lapsed.access_token,
      }),
    ).color,
    "blue",
  );
});

test("create-encounter attaches only to a campaign the caller owns", async () => {
  const gm = await makeUser({ tier: 1 });
  const other = await makeUser({ tier: 1 });
  const campaign = successData(
    await call("create-campaign", { name: "Mine" }, { token: gm.access_token }),
  );
  const attached = await makeEncounter(gm, { campaign_id: campaign.id });
  equal(attached.campaign_id, campaign.id);
  equal(
    failMessage(
      await call("create-encounter", { ...ENCOUNTER, campaign_id: campaign.id }, {
        token: other.access_token,
      }),
    ),
    "You do not have access to this campaign",
  );
});

test("find-encounter returns only the caller's own, sorted by id", async () => {
  const gm = await makeUser({ tier: 1 });
  const other = await makeUser({ tier: 1 });
  const first = await makeEncounter(gm);
  const second = await makeEncounter(gm);
  const foreign = await makeEncounter(other);
  const token = await freshToken(gm);
  deepStrictEqual(
    successData(await call("find-encounter", {}, { token })).map((e: { id: number }) => e.id),
    [first.id, second.id],
  );
  deepStrictEqual(
    successData(await call("find-encounter", { id: [first.id, foreign.id] }, { token }))
      .map((e: { id: number }) => e.id),
    [first.id],
  );
  deepStrictEqual(successData(await call("find-encounter", { id: foreign.id }, { token })), []);
  deepStrictEqual(
    successData(await call("find-encounter", { user_id: other.user_id }, { token })),
    [],
  );
});

test("an API key creates and finds its owner's encounters", async () => {
  const gm = await makeUser({ tier: 1 });
  const { apiKey } = await makeApiKey(gm);
  const created = successData(await call("create-encounter", ENCOUNTER, { token: apiKey }));
  equal(created.user_id, gm.user_id);
  deepStrictEqual(
    successData(await call("find-encounter", {}, { token: apiKey })).map((e: { id: number }) =>
      e.id
    ),
    [created.id],
  );
});

test("delete-content deletes the caller's own encounter only", async () => {
  const gm = await makeUser({ tier: 1 });
  const other = await makeUser({ tier: 1 });
  const created = await makeEncounter(gm);
  equal(
    failMessage(
      await call("delete-content", { type: "encounter", id: created.id }, {
        token: other.access_token,
      }),
    ),
    "Content not found",
  );
  equal(
    successData(
      await call("delete-content", { type: "encounter", id: created.id }, {
        token: gm.access_token,
      }),
    ),
    true,
  );
  deepStrictEqual(
    successData(await call("find-encounter", { id: created.id }, { token: gm.access_token })),
    [],
  );
});
