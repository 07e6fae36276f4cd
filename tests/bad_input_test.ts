/**
 * Bad input, as a third-party tool author sends it: a wrong id type, an unknown key, a value the
 * record could never take, a method other than POST. Each is refused with a message that names
 * what is accepted (and still counts against the caller's budget); keys the web client sends on
 * updates are ignored instead. Each test pins one fix from a review against the contract.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  fetchFrom,
  freshToken,
  makeUser,
  randomIp,
  server,
  successData,
  test,
} from "./_harness.ts";

test("a wrong id type names what find endpoints accept: an id or an array of ids", async () => {
  const user = await makeUser();
  const token = user.access_token;
  equal(
    failMessage(await call("find-spell", { id: "seven" }, { token })),
    "Invalid value for id: expected number or array, received string",
  );
  equal(
    failMessage(await call("find-item", { id: null }, { token })),
    "Invalid value for id: expected number or array, received null",
  );
  equal(
    failMessage(await call("find-trait", { id: 1.5 }, { token })),
    "Invalid value for id: expected int or array, received number",
  );
  // An array that holds a bad element points at that element.
  match(
    failMessage(await call("find-class", { id: [2, 1.5] }, { token })),
    /^Invalid value for id\.1: /,
  );
});

test("create-spell names -1 as an accepted id when the id has the wrong type", async () => {
  const user = await makeUser();
  const res = await call("create-spell", { id: "new", name: "X", rank: 1 }, {
    token: user.access_token,
  });
  equal(failMessage(res), "Invalid value for id: expected number or -1, received string");
});

test("a method other than POST still carries the rate-limit headers and counts", async () => {
  const from = fetchFrom(randomIp());
  const first = await from(`${server.functionsUrl}/find-spell`);
  equal(first.status, 405);
  await first.body?.cancel();
  equal(first.headers.get("X-RateLimit-Limit"), "30");
  const remaining = Number(first.headers.get("X-RateLimit-Remaining"));
  ok(Number.isInteger(remaining) && remaining < 30);
  ok(Number.isInteger(Number(first.headers.get("X-RateLimit-Reset"))));
  const second = await from(`${server.functionsUrl}/find-spell`, { method: "PUT" });
  await second.body?.cancel();
  equal(Number(second.headers.get("X-RateLimit-Remaining")), remaining - 1);
});

async function officialSpell(): Promise<{ id: number; sourceId: number }> {
  const [row] = await adminSql<{ id: number; content_source_id: number }[]>`
    select s.id, s.content_source_id from public.spell s
    join public.content_source c on c.id = s.content_source_id
    where c.user_id is null and c.is_published order by s.id limit 1`;
  if (!row) throw new Error("the seed has no official spell");
  return { id: row.id, sourceId: row.content_source_id };
}

test("create-content-update refuses values the record could never take, naming the field", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const spell = await officialSpell();
  const base = {
    type: "spell",
    action: "UPDATE",
    ref_id: spell.id,
    content_source_id: spell.sourceId,
  };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ rank: 99 }, /^Invalid value for data\.rank: too big/],
    [{ rank: "high" }, /^Invalid value for data\.rank: /],
    [{ name: "  " }, /^Invalid value for data\.name: /],
    // null means "not given" (the web client's blank field), which leaves nothing to change.
    [{ name: null }, /^Invalid value for data: an update must change at least one field/],
    [{ rarity: "LEGENDARY" }, /^Invalid value for data\.rarity: .*COMMON/],
    [{ traits: "fire" }, /^Invalid value for data\.traits: /],
  ];
  for (const [data, expected] of cases) {
    match(failMessage(await call("create-content-update", { ...base, data }, { token })), expected);
  }
  match(
    failMessage(
      await call("create-content-update", {
        type: "item",
        action: "CREATE",
        content_source_id: spell.sourceId,
        data: { name: "Odd", level: 1, group: "SPOON" },
      }, { token }),
    ),
    /^Invalid value for data\.group: /,
  );
  // Nothing was stored by any refusal.
  const stored =
    await adminSql`select 1 from public.content_update where user_id = ${user.user_id}`;
  equal(stored.length, 0);
  // Unknown fields are still named by the database's own rule, and a good proposal still passes.
  equal(
    failMessage(
      await call("create-content-update", { ...base, data: { colour: "red" } }, { token }),
    ),
    "Invalid value for data: spell has no field colour",
  );
  const made = successData(
    await call("create-content-update", { ...base, data: { rank: 4 } }, { token }),
  );
  equal(made.status.state, "PENDING");
});

test("find-content-update refuses a filter it does not have instead of listing everything", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const spell = await officialSpell();
  successData(
    await call("create-content-update", {
      type: "spell",
      action: "UPDATE",
      ref_id: spell.id,
      content_source_id: spell.sourceId,
      data: { rank: 5 },
    }, { token }),
  );
  match(
    failMessage(await call("find-content-update", { name: "nobody has this name" }, { token })),
    /^Unknown field: name\. Accepted: /,
  );
  match(
    failMessage(await call("find-content-update", { created: { since: "2020-01-01" } }, { token })),
    /^Unknown field: since\. Accepted: from, to$/,
  );
  equal(
    successData(await call("find-content-update", { user_id: user.user_id }, { token })).length,
    1,
  );
});

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
    match(failMessage(res), new RegExp(`^Unknown field: ${key}\\. Accepted: `), fn);
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
