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
