import { deepStrictEqual, equal } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
} from "./_harness.ts";

// The web client's own bodies for campaigns and deletes (frontend/src/pages/CampaignsPage.tsx,
// campaign/panels/SettingsPanel.tsx, CharactersPage.tsx).

test("create-campaign keeps a text description as the web client sends it, and an object too", async () => {
  const gm = await makeUser({ tier: 1 });
  const token = gm.access_token;
  const created = successData(
    await call("create-campaign", {
      name: "My Campaign",
      description: "A new adventure begins...",
      meta_data: { settings: { show_party_member_status: "STATUS" } },
    }, { token }),
  );
  equal(created.description, "A new adventure begins...");
  const [listed] = successData(await call("find-campaign", { user_id: gm.user_id }, { token }));
  equal(listed.description, "A new adventure begins...");
  // The overview page saves the whole row back (debounced), description edited as text.
  const saved = successData(
    await call("create-campaign", { ...listed, description: "Chapter two" }, { token }),
  );
  equal(saved.description, "Chapter two");
  const object = successData(
    await call("create-campaign", { id: created.id, description: { contents: { a: 1 } } }, {
      token,
    }),
  );
  deepStrictEqual(object.description, { contents: { a: 1 } });
  equal(
    failMessage(await call("create-campaign", { id: created.id, description: 5 }, { token })),
    "Invalid value for description: expected string or object, received number",
  );
});

test("delete-content deletes the owner's character and campaign; others' stay", async () => {
  const owner = await makeUser({ tier: 1 });
  const other = await makeUser({ tier: 1 });
  const character = successData(
    await call("create-character", { name: "Doomed", options: { is_public: true } }, {
      token: owner.access_token,
    }),
  );
  const campaign = successData(
    await call("create-campaign", { name: "Doomed table" }, { token: owner.access_token }),
  );
  for (const [type, id] of [["character", character.id], ["campaign", campaign.id]] as const) {
    equal(
      failMessage(await call("delete-content", { id, type }, { token: other.access_token })),
      type === "character" ? "You do not have access to this content" : "Content not found",
    );
    equal(
      successData(await call("delete-content", { id, type }, { token: owner.access_token })),
      true,
    );
    equal(
      failMessage(await call("delete-content", { id, type }, { token: owner.access_token })),
      "Content not found",
    );
  }
  const [left] = await adminSql<{ n: number }[]>`
    select (select count(*) from public.character where id = ${character.id})::int
         + (select count(*) from public.campaign where id = ${campaign.id})::int as n`;
  equal(left?.n, 0);
});

// The account page (frontend/src/pages/AccountPage.tsx) sends the whole profile on every change.
test("update-user takes the account page's whole profile: its api list made real, an empty image URL clears", async () => {
  const user = await makeUser();
  const token = user.access_token;
  await call("update-user", { image_url: "https://example.test/me.png" }, { token });
  const before = successData(await call("get-user", {}, { token }));
  equal(before.image_url, "https://example.test/me.png");
  equal(
    successData(
      await call("update-user", {
        display_name: "Alice",
        summary: "hi",
        image_url: "",
        background_image_url: "",
        site_theme: { color: "#228be6", zoom: 1 },
        api: {
          clients: [{
            name: "New Client",
            id: "a1b2c3d4",
            api_key: crypto.randomUUID(),
            image_url: "icon|||abstract064|||#359fdf",
          }],
        },
      }, { token }),
    ),
    true,
  );
  const after = successData(await call("get-user", {}, { token }));
  equal(after.display_name, "Alice");
  equal(after.image_url, null);
  equal(after.background_image_url, null);
  deepStrictEqual(
    after.api.clients.map((c: { name: string }) => c.name),
    ["New Client"],
    "the page's new entry is a client (tests/web_client_app_test.ts has the whole flow)",
  );
  equal(
    failMessage(await call("update-user", { image_url: "javascript:alert(1)" }, { token })),
    "Invalid value for image_url: invalid URL",
  );
});

test("get-user lists the caller's API clients without keys, and a GM-group member's virtual tier", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const created = successData(
    await call("create-api-client", { name: "Sync", description: "my sync tool" }, { token }),
  );
  const own = successData(await call("get-user", {}, { token }));
  equal(own.api.clients.length, 1);
  const [client] = own.api.clients;
  equal(client.id, String(created.id));
  equal(client.name, "Sync");
  equal(client.description, "my sync tool");
  equal(typeof client.created_at, "string");
  equal(client.last_used_at, null);
  equal(JSON.stringify(own).includes(created.api_key), false, "never a key");

  const gm = await makeUser({ tier: 4 });
  await adminSql`update public.public_user set display_name = 'Game Master Gail'
    where user_id = ${gm.user_id}::uuid`;
  successData(await call("gm-regenerate-code", {}, { token: gm.access_token }));
  const [group] = await adminSql<{ access_code: string }[]>`
    select access_code from public.gm_group where gm_user_id = ${gm.user_id}::uuid`;
  successData(
    await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: group?.access_code }, {
      token,
    }),
  );
  const member = successData(await call("get-user", {}, { token }));
  equal(member.patreon.game_master.virtual_tier.game_master_user_id, gm.user_id);
  equal(member.patreon.game_master.virtual_tier.game_master_name, "Game Master Gail");
  equal(typeof member.patreon.game_master.virtual_tier.added_at, "string");
});

// The consent page (frontend/src/pages/OAuthAccessPage.tsx) and the builder's authorized-clients
// section (pages/character_builder/CharBuilderHome.tsx) keep grants in
// `details.api_clients.client_access`; here they stay rows of character_grant.
test("grants written through details.api_clients become rows; find-character shows them to the owner", async () => {
  const owner = await makeUser();
  const developer = await makeUser();
  const token = owner.access_token;
  const { clientId, apiKey } = await makeApiKey(developer);
  const devProfile = successData(await call("get-user", {}, { token: developer.access_token }));
  const character = successData(await call("create-character", { name: "Granted" }, { token }));
  equal(
    failMessage(await call("find-character", { id: character.id }, { token: apiKey }), 403).length >
      0,
    true,
  );

  // The consent page: the fetched details plus one entry, ids as the URL carries them (strings).
  const entry = {
    publicUserId: String(devProfile.id),
    clientId: String(clientId),
    addedAt: 1732320000000,
  };
  const [saved] = successData(
    await call("update-character", {
      id: character.id,
      details: { ...character.details, api_clients: { client_access: [entry] } },
    }, { token }),
  );
  const shown = saved.details.api_clients.client_access;
  equal(shown.length, 1);
  deepStrictEqual([shown[0].publicUserId, shown[0].clientId], [entry.publicUserId, entry.clientId]);
  equal(typeof shown[0].addedAt, "number");
  const [stored] = await adminSql<{ details: Record<string, unknown> }[]>`
    select details from public.character where id = ${character.id}`;
  equal(stored && "api_clients" in stored.details, false, "the block is never stored");
  // The developer's key now reaches the character, and sees no grant block in it.
  const viaKey = successData(await call("find-character", { id: character.id }, { token: apiKey }));
  equal(viaKey.id, character.id);
  equal("api_clients" in viaKey.details, false);
  // The owner reads the block back, names the client through the developer's profile, and the
  // existing grant endpoints see the same row.
  const found = successData(await call("find-character", { id: character.id }, { token }));
  deepStrictEqual(found.details.api_clients.client_access, shown);
  const profile = successData(await call("get-user", { _id: entry.publicUserId }, { token }));
  deepStrictEqual(profile.api.clients.map((c: { id: string }) => c.id), [entry.clientId]);
  const strangerView = successData(
    await call("get-user", { _id: entry.publicUserId }, { token: (await makeUser()).access_token }),
  );
  deepStrictEqual(strangerView.api.clients, [], "others see no clients they did not authorize");
  deepStrictEqual(
    successData(await call("find-character-access", { character_id: character.id }, { token }))
      .map((c: { client_id: number }) => c.client_id),
    [clientId],
  );
  // An autosave that sends the same block back changes nothing; the builder's revoke (the entry
  // filtered out) removes the row.
  successData(
    await call("update-character", { id: character.id, details: found.details }, { token }),
  );
  equal(
    successData(await call("find-character", { id: character.id }, { token: apiKey })).id,
    character.id,
  );
  const [revoked] = successData(
    await call("update-character", {
      id: character.id,
      details: { ...found.details, api_clients: { client_access: [] } },
    }, { token }),
  );
  equal("api_clients" in revoked.details, false);
  equal(
    failMessage(await call("find-character", { id: character.id }, { token: apiKey }), 403).length >
      0,
    true,
  );
});

test("only the signed-in owner grants through details; copies, strangers and bad entries grant nothing", async () => {
  const owner = await makeUser({ tier: 1 });
  const developer = await makeUser();
  const gm = await makeUser({ tier: 1 });
  const { clientId, apiKey } = await makeApiKey(developer);
  const devProfile = successData(await call("get-user", {}, { token: developer.access_token }));
  const block = {
    api_clients: {
      client_access: [{
        publicUserId: String(devProfile.id),
        clientId: String(clientId),
        addedAt: 1,
      }],
    },
  };
  // A copy (create-character with the fetched details) carries no grants.
  const copy = successData(
    await call("create-character", { name: "(Copy) X", details: block }, {
      token: owner.access_token,
    }),
  );
  equal("api_clients" in copy.details, false);
  equal(
    failMessage(await call("find-character", { id: copy.id }, { token: apiKey }), 403).length > 0,
    true,
  );
  // A GM who may write the character cannot grant on it.
  const campaign = successData(
    await call("create-campaign", { name: "T" }, { token: gm.access_token }),
  );
  successData(
    await call("find-campaign", { join_key: campaign.join_key }, { token: owner.access_token }),
  );
  successData(
    await call("update-character", { id: copy.id, campaign_id: campaign.id }, {
      token: owner.access_token,
    }),
  );
  const [byGm] = successData(
    await call("update-character", { id: copy.id, details: block }, { token: gm.access_token }),
  );
  equal("api_clients" in byGm.details, false);
  equal(
    failMessage(await call("find-character", { id: copy.id }, { token: apiKey }), 403).length > 0,
    true,
  );
  // A client named with the wrong owner, or an id that is not a client's, grants nothing and does
  // not break the save.
  const wrong = {
    api_clients: {
      client_access: [
        { publicUserId: "1", clientId: String(clientId), addedAt: 1 },
        { publicUserId: String(devProfile.id), clientId: "a1b2c3d4", addedAt: 1 },
      ],
    },
  };
  const [saved] = successData(
    await call("update-character", { id: copy.id, details: wrong }, { token: owner.access_token }),
  );
  equal("api_clients" in saved.details, false);
  equal(
    failMessage(await call("find-character", { id: copy.id }, { token: apiKey }), 403).length > 0,
    true,
  );
});
