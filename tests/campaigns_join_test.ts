import { deepStrictEqual, equal, match, notEqual } from "node:assert/strict";
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

const KEY = /^[0-9a-z]{6}-[0-9a-z]{6}$/;

async function makeCharacter(user: TestUser): Promise<number> {
  return successData(
    await call("create-character", { name: "Player" }, { token: await freshToken(user) }),
  ).id;
}

// deno-lint-ignore no-explicit-any -- tests read arbitrary fields of the data
async function makeCampaign(gm: TestUser): Promise<any> {
  return successData(
    await call("create-campaign", { name: "Abomination Vaults" }, { token: await freshToken(gm) }),
  );
}

async function setCampaign(user: TestUser, id: number, campaignId: number | null) {
  return successData(
    await call("update-character", { id, campaign_id: campaignId, hp_current: 4 }, {
      token: await freshToken(user),
    }),
  )[0];
}

test("create-campaign is refused at tier 0 and allowed at tier 1", async () => {
  const free = await makeUser({ tier: 0 });
  const refused = await call("create-campaign", { name: "No" }, { token: free.access_token });
  equal(
    failMessage(refused),
    "User does not have access: creating a campaign requires supporter tier 1 or higher",
  );
  equal(refused.body.data.required_tier, 1);
  const supporter = await makeUser({ tier: 1 });
  const created = successData(
    await call("create-campaign", { name: " Yes ", notes: { a: 1 } }, {
      token: supporter.access_token,
    }),
  );
  equal(created.name, "Yes");
  equal(created.user_id, supporter.user_id);
  match(created.join_key, KEY);
  deepStrictEqual(created.notes, { a: 1 });
  deepStrictEqual(created.recommended_content_sources, { enabled: [] });
  equal(
    failMessage(await call("create-campaign", {}, { token: supporter.access_token })),
    "Missing required field: name",
  );
});

test("create-campaign with id updates the owner's campaign only", async () => {
  const gm = await makeUser({ tier: 1 });
  const player = await makeUser();
  const campaign = await makeCampaign(gm);
  const updated = successData(
    await call("create-campaign", { id: campaign.id, name: "Renamed", join_key: "ignored" }, {
      token: gm.access_token,
    }),
  );
  equal(updated.name, "Renamed");
  equal(updated.join_key, campaign.join_key);
  equal(
    failMessage(
      await call("create-campaign", { id: campaign.id, name: "Mine now" }, {
        token: player.access_token,
      }),
    ),
    "Campaign not found",
  );
  // The refused update was sent together with its check: it changed nothing.
  const [row] = await adminSql<{ name: string }[]>`
    select name from public.campaign where id = ${campaign.id}`;
  equal(row?.name, "Renamed");
});

test("join flow: a join-key lookup lets a character enter within the hour", async () => {
  const gm = await makeUser({ tier: 1 });
  const player = await makeUser();
  const campaign = await makeCampaign(gm);
  const id = await makeCharacter(player);

  // Without a lookup the campaign change is dropped silently; the rest of the write saves.
  const dropped = await setCampaign(player, id, campaign.id);
  equal(dropped.campaign_id, null);
  equal(dropped.hp_current, 4);

  const found = successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: player.access_token }),
  );
  equal(found.length, 1);
  equal(found[0].id, campaign.id);
  equal(found[0].join_key, campaign.join_key);
  equal((await setCampaign(player, id, campaign.id)).campaign_id, campaign.id);

  // A member sees the campaign, without its key; leaving always works.
  const asMember = successData(
    await call("find-campaign", { id: campaign.id }, { token: player.access_token }),
  );
  equal(asMember.length, 1);
  equal("join_key" in asMember[0], false);
  equal((await setCampaign(player, id, null)).campaign_id, null);
});

test("join flow: a join grant older than an hour no longer admits", async () => {
  const gm = await makeUser({ tier: 1 });
  const player = await makeUser();
  const campaign = await makeCampaign(gm);
  const id = await makeCharacter(player);
  successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: player.access_token }),
  );
  await adminSql`update public.campaign_join_grant set granted_at = now() - interval '61 minutes'
                 where user_id = ${player.user_id}::uuid`;
  equal((await setCampaign(player, id, campaign.id)).campaign_id, null);
  // A character can also be created straight into a campaign with a fresh grant.
  successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: player.access_token }),
  );
  const created = successData(
    await call("create-character", { name: "New", campaign_id: campaign.id }, {
      token: player.access_token,
    }),
  );
  equal(created.campaign_id, campaign.id);
});

test("find-campaign: no filter gives []; strangers see nothing by id; the owner sees the key", async () => {
  const gm = await makeUser({ tier: 1 });
  const stranger = await makeUser();
  const campaign = await makeCampaign(gm);
  deepStrictEqual(successData(await call("find-campaign", {}, { token: gm.access_token })), []);
  deepStrictEqual(
    successData(await call("find-campaign", { id: campaign.id }, { token: stranger.access_token })),
    [],
  );
  const own = successData(
    await call("find-campaign", { user_id: gm.user_id }, { token: gm.access_token }),
  );
  equal(own.length, 1);
  equal(own[0].join_key, campaign.join_key);
  deepStrictEqual(
    successData(
      await call("find-campaign", { join_key: "aaaaaa-bbbbbb" }, {
        token: stranger.access_token,
      }),
    ),
    [],
  );
  // Without credentials only a join-key lookup answers, and it grants nothing.
  deepStrictEqual(successData(await call("find-campaign", { id: campaign.id })), []);
  const anonymous = successData(await call("find-campaign", { join_key: campaign.join_key }));
  equal(anonymous.length, 1);
  const [grants] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.campaign_join_grant where campaign_id = ${campaign.id}`;
  equal(grants?.n, 0);
});

test("an API key reads and writes only its owner's campaigns", async () => {
  const gm = await makeUser({ tier: 1 });
  const player = await makeUser();
  const campaign = await makeCampaign(gm);
  const id = await makeCharacter(player);
  successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: player.access_token }),
  );
  await setCampaign(player, id, campaign.id);
  const playerKey = await makeApiKey(player);
  deepStrictEqual(
    successData(await call("find-campaign", { id: campaign.id }, { token: playerKey.apiKey })),
    [],
  );
  const gmKey = await makeApiKey(gm);
  const viaKey = successData(
    await call("create-campaign", { name: "Second" }, { token: gmKey.apiKey }),
  );
  match(viaKey.join_key, KEY);
  equal(
    successData(await call("find-campaign", { id: campaign.id }, { token: gmKey.apiKey }))[0].id,
    campaign.id,
  );
  // Removing a character is a character endpoint: the GM's key needs a grant on it (403).
  equal(
    failMessage(
      await call("remove-from-campaign", { character_id: id, campaign_id: campaign.id }, {
        token: gmKey.apiKey,
      }),
      403,
    ),
    "You do not have access to this character",
  );
  const [row] = await adminSql<{ campaign_id: number | null }[]>`
    select campaign_id from public.character where id = ${id}`;
  equal(row?.campaign_id, campaign.id);
});

test("reset-campaign-key returns a new key, kills the old one and open grants, keeps members", async () => {
  const gm = await makeUser({ tier: 1 });
  const member = await makeUser();
  const pending = await makeUser();
  const stranger = await makeUser();
  const campaign = await makeCampaign(gm);
  const memberCharacter = await makeCharacter(member);
  const pendingCharacter = await makeCharacter(pending);
  successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: member.access_token }),
  );
  await setCampaign(member, memberCharacter, campaign.id);
  successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: pending.access_token }),
  );

  const reset = successData(
    await call("reset-campaign-key", { id: campaign.id }, { token: gm.access_token }),
  );
  match(reset.join_key, KEY);
  notEqual(reset.join_key, campaign.join_key);
  deepStrictEqual(
    successData(
      await call("find-campaign", { join_key: campaign.join_key }, {
        token: stranger.access_token,
      }),
    ),
    [],
  );
  equal((await setCampaign(pending, pendingCharacter, campaign.id)).campaign_id, null);
  const kept = successData(
    await call("find-character", { id: memberCharacter }, { token: member.access_token }),
  );
  equal(kept.campaign_id, campaign.id);

  equal(
    failMessage(
      await call("reset-campaign-key", { id: campaign.id }, {
        token: member.access_token,
      }),
    ),
    "You do not have access to this campaign",
  );
  equal(
    failMessage(
      await call("reset-campaign-key", { id: campaign.id }, {
        token: stranger.access_token,
      }),
    ),
    "Campaign not found",
  );
  // Both refused resets were sent together with their checks: the key is the one reset gave.
  const [keptKey] = await adminSql<{ join_key: string }[]>`
    select join_key from public.campaign where id = ${campaign.id}`;
  equal(keptKey?.join_key, reset.join_key);
  equal(
    failMessage(await call("reset-campaign-key", {}, { token: gm.access_token })),
    "Missing required field: id",
  );
});

test("remove-from-campaign: the owner removes a character, its player keeps it", async () => {
  const gm = await makeUser({ tier: 1 });
  const player = await makeUser();
  const stranger = await makeUser({ tier: 1 });
  const campaign = await makeCampaign(gm);
  const id = await makeCharacter(player);
  successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: player.access_token }),
  );
  await setCampaign(player, id, campaign.id);

  const body = { character_id: id, campaign_id: campaign.id };
  equal(
    failMessage(await call("remove-from-campaign", body, { token: player.access_token })),
    "Campaign not found",
  );
  equal(
    failMessage(await call("remove-from-campaign", body, { token: stranger.access_token })),
    "Campaign not found",
  );
  equal(successData(await call("remove-from-campaign", body, { token: gm.access_token })), true);

  const kept = successData(await call("find-character", { id }, { token: player.access_token }));
  equal(kept.user_id, player.user_id);
  equal(kept.campaign_id, null);
  equal(successData(await call("find-character", { id }, { token: gm.access_token })), null);
  // The removed player's join grant went with them.
  equal((await setCampaign(player, id, campaign.id)).campaign_id, null);
  // Removed already: the character is no longer in the campaign (not "not found", though the GM
  // can no longer read it); an id that matches nothing answers the same, revealing nothing.
  equal(
    failMessage(await call("remove-from-campaign", body, { token: gm.access_token })),
    "Character not in campaign",
  );
  equal(
    failMessage(
      await call("remove-from-campaign", { character_id: 2 ** 40, campaign_id: campaign.id }, {
        token: gm.access_token,
      }),
    ),
    "Character not in campaign",
  );
  const own = await makeCharacter(gm);
  equal(
    failMessage(
      await call("remove-from-campaign", { character_id: own, campaign_id: campaign.id }, {
        token: gm.access_token,
      }),
    ),
    "Character not in campaign",
  );
});

test("deleting a campaign keeps its characters and frees them", async () => {
  const gm = await makeUser({ tier: 1 });
  const player = await makeUser();
  const campaign = await makeCampaign(gm);
  const id = await makeCharacter(player);
  successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: player.access_token }),
  );
  await setCampaign(player, id, campaign.id);
  await adminSql`delete from public.campaign where id = ${campaign.id}`;
  const kept = successData(await call("find-character", { id }, { token: player.access_token }));
  equal(kept.campaign_id, null);
});
