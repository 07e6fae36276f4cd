import { deepStrictEqual, equal } from "node:assert/strict";
import { call, failMessage, freshToken, makeUser, successData, test } from "./_harness.ts";

test("find-character, find-campaign, find-encounter, find-character-access and get-user refuse an unknown key", async () => {
  const user = await makeUser({ tier: 1 });
  const token = await freshToken(user);
  const character = successData(await call("create-character", { name: "Kept" }, { token }));
  // Misspelled filters: before, each was dropped and the call answered as if unfiltered.
  const cases: [string, Record<string, unknown>, string][] = [
    ["find-character", { campaign: 5 }, "campaign"],
    ["find-campaign", { joinkey: "abc123-def456" }, "joinkey"],
    ["find-encounter", { campaignId: 1 }, "campaignId"],
    ["find-character-access", { character_id: character.id, client: 1 }, "client"],
    ["get-user", { user_id: crypto.randomUUID() }, "user_id"],
  ];
  for (const [fn, body, key] of cases) {
    const res = await call(fn, body, { token });
    equal(failMessage(res), `Unknown field: ${key}`, fn);
    equal(res.body.data.field, "body", fn);
  }
});

test("update-character and update-user still ignore keys they do not know", async () => {
  const user = await makeUser();
  const token = await freshToken(user);
  const character = successData(await call("create-character", { name: "Lenient" }, { token }));
  const [updated] = successData(
    await call("update-character", { id: character.id, hp_current: 3, not_a_field: 1 }, {
      token,
    }),
  );
  deepStrictEqual([updated.id, updated.hp_current], [character.id, 3]);
  equal(successData(await call("update-user", { summary: "x", not_a_field: 1 }, { token })), true);
});
