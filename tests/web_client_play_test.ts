import { deepStrictEqual, equal } from "node:assert/strict";
import { adminSql, call, failMessage, makeUser, successData, test } from "./_harness.ts";

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
test("update-user takes the account page's whole profile: api ignored, an empty image URL clears", async () => {
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
  deepStrictEqual(after.api, { clients: [] }, "an api block in update-user creates no client");
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
