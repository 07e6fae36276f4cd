import { deepStrictEqual, equal, match } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  freshToken,
  makeUser,
  successData,
  test,
} from "./_harness.ts";
import { errorMessage } from "../supabase/functions/_shared/error_message.ts";

async function countCharacters(userId: string): Promise<number> {
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.character where user_id = ${userId}::uuid`;
  return row?.n ?? -1;
}

test("create-character gives a new character the defaults", async () => {
  const user = await makeUser();
  const created = successData(
    await call("create-character", { name: "  Ezren’s heir ", created_at: "ignored" }, {
      token: user.access_token,
    }),
  );
  equal(created.name, "Ezren's heir");
  equal(created.level, 1);
  equal(created.user_id, user.user_id);
  equal(created.campaign_id, null);
  deepStrictEqual(created.inventory.coins, { cp: 0, sp: 0, gp: 15, pp: 0 });
  const [official] = await adminSql<{ ids: number[] }[]>`
    select coalesce(array_agg(id order by id), '{}') as ids
    from public.content_source where user_id is null and is_published`;
  deepStrictEqual(created.content_sources.enabled, official?.ids ?? []);
  equal(created.created_at, created.updated_at);
});

test("create-character keeps given content sources and refuses a bad field", async () => {
  const user = await makeUser();
  const created = successData(
    await call("create-character", { content_sources: { enabled: [] }, level: 4 }, {
      token: user.access_token,
    }),
  );
  deepStrictEqual(created.content_sources, { enabled: [] });
  equal(created.level, 4);
  match(
    failMessage(await call("create-character", { level: "high" }, { token: user.access_token })),
    /^Invalid value for level/,
  );
});

test("create-character: 20 concurrent creates by a free account holding 5 leave exactly 6", async () => {
  const user = await makeUser({ tier: 0 });
  await adminSql`insert into public.character (user_id, name)
                 select ${user.user_id}::uuid, 'Existing ' || n from generate_series(1, 5) n`;
  const token = await freshToken(user);
  const results = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) => call("create-character", { name: `Race ${i}` }, { token }),
    ),
  );
  const succeeded = results.filter((r) => r.body?.status === "success");
  const refused = results.filter((r) => r.body?.status === "fail");
  equal(succeeded.length, 1);
  equal(refused.length, 19);
  for (const r of refused) {
    equal(failMessage(r), "User does not have access: free accounts are limited to 6 characters");
    equal(r.body.data.required_tier, 2);
  }
  equal(await countCharacters(user.user_id), 6);
});

test("create-character: a tier-1 account is capped at 6 too", async () => {
  const user = await makeUser({ tier: 1 });
  await adminSql`insert into public.character (user_id, name)
                 select ${user.user_id}::uuid, 'Existing ' || n from generate_series(1, 6) n`;
  const res = await call("create-character", {}, { token: await freshToken(user) });
  equal(failMessage(res), "User does not have access: free accounts are limited to 6 characters");
  equal(res.body.data.required_tier, 2);
});

test("create-character: 20 concurrent creates at tier 2 all succeed", async () => {
  const user = await makeUser({ tier: 2 });
  await adminSql`insert into public.character (user_id, name)
                 select ${user.user_id}::uuid, 'Existing ' || n from generate_series(1, 5) n`;
  const token = await freshToken(user);
  const results = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) => call("create-character", { name: `Many ${i}` }, { token }),
    ),
  );
  for (const r of results) successData(r);
  equal(await countCharacters(user.user_id), 25);
});

test("the character cap holds for inserts that bypass the endpoints", async () => {
  const user = await makeUser({ tier: 0 });
  await adminSql`insert into public.character (user_id, name)
                 select ${user.user_id}::uuid, 'Existing ' || n from generate_series(1, 6) n`;
  let message = "";
  try {
    await adminSql`insert into public.character (user_id, name) values (${user.user_id}::uuid, 'x')`;
  } catch (e) {
    message = errorMessage(e);
  }
  equal(message, "User does not have access: free accounts are limited to 6 characters");
});
