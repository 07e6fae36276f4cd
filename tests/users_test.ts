import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import type postgres from "postgres";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";

const PUBLIC_KEYS = [
  "api",
  "background_image_url",
  "created_at",
  "display_name",
  "id",
  "image_url",
  "is_admin",
  "is_community_paragon",
  "is_developer",
  "is_mod",
  "patreon",
  "site_theme",
  "summary",
  "user_id",
];

test("get-user {} returns the caller's own full profile", async () => {
  const user = await makeUser({ tier: 2 });
  const profile = successData(await call("get-user", {}, { token: user.access_token }));
  equal(profile.user_id, user.user_id);
  equal(typeof profile.id, "number");
  deepStrictEqual(profile.patreon, { tier: "WANDERER", game_master: null });
  deepStrictEqual(profile.subscribed_content_sources, []);
  equal(profile.organized_play_id, null);
  equal(profile.deactivated, false);
  equal(profile.is_admin, false);
});

test("get-user {id} and {_id} return another user's public profile and nothing private", async () => {
  const viewer = await makeUser();
  const other = await makeUser({ tier: 4 });
  await adminSql`update public.public_user set organized_play_id = 'op-123',
    subscribed_content_sources = '[{"source_id": 7, "source_name": "Book", "added_at": "x"}]'
    where user_id = ${other.user_id}`;
  const byUuid = successData(
    await call("get-user", { id: other.user_id }, { token: viewer.access_token }),
  );
  deepStrictEqual(Object.keys(byUuid).sort(), PUBLIC_KEYS);
  equal(byUuid.user_id, other.user_id);
  deepStrictEqual(byUuid.patreon, { tier: "GAME-MASTER" });
  const text = JSON.stringify(byUuid);
  ok(!text.includes("op-123") && !text.includes(other.email), "no private fields or email");
  const byProfileId = successData(
    await call("get-user", { _id: byUuid.id }, { token: viewer.access_token }),
  );
  deepStrictEqual(byProfileId, byUuid);
});

test("get-user {} shows a GAME-MASTER their group's access code, and nobody else sees it", async () => {
  const gm = await makeUser({ tier: 4 });
  const first = successData(await call("get-user", {}, { token: gm.access_token })).patreon;
  equal(first.tier, "GAME-MASTER");
  match(first.game_master.access_code, /^[0-9a-z]{12}$/, "a code from the moment of the tier");
  successData(await call("gm-regenerate-code", {}, { token: gm.access_token }));
  const [group] = await adminSql<{ access_code: string }[]>`
    select access_code from public.gm_group where gm_user_id = ${gm.user_id}::uuid`;
  ok(group);
  deepStrictEqual(
    successData(await call("get-user", {}, { token: gm.access_token })).patreon,
    { tier: "GAME-MASTER", game_master: { access_code: group.access_code } },
  );
  const member = await makeUser({ tier: 0 });
  successData(
    await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: group.access_code }, {
      token: member.access_token,
    }),
  );
  const memberView = successData(await call("get-user", {}, { token: member.access_token }));
  equal(memberView.patreon.tier, null);
  equal(memberView.patreon.game_master.access_code, null);
  equal(memberView.patreon.game_master.virtual_tier.game_master_user_id, gm.user_id);
  const seen = successData(
    await call("get-user", { id: gm.user_id }, { token: member.access_token }),
  );
  deepStrictEqual(seen.patreon, { tier: "GAME-MASTER" });
  ok(!JSON.stringify(seen).includes(group.access_code), "no access code in a public profile");
  // A lapsed GAME-MASTER's old code admits nobody, so it is not shown either.
  await adminSql`update public.public_user set supporter_tier = 3 where user_id = ${gm.user_id}`;
  equal(
    successData(await call("get-user", {}, { token: gm.access_token })).patreon.game_master,
    null,
  );
});

test("get-user {} lists the caller's API clients oldest first, ids compared as numbers", async () => {
  const developer = await makeUser();
  // The next client ids cross a power of ten, where ids compared as text would reorder.
  await adminSql`
    select setval(pg_get_serial_sequence('public.api_client', 'id'),
      (10 ^ ceil(log(greatest(nextval(pg_get_serial_sequence('public.api_client', 'id')), 10) + 5)))
        ::bigint - 3)`;
  const made: number[] = [];
  for (let i = 0; i < 5; i++) made.push((await makeApiKey(developer)).clientId);
  const listed = successData(await call("get-user", {}, { token: developer.access_token }));
  deepStrictEqual(listed.api.clients.map((c: { id: string }) => Number(c.id)), made);
});

test("get-user refuses an unknown or deactivated user with User not found", async () => {
  const viewer = await makeUser();
  const other = await makeUser();
  await adminSql`update public.public_user set deactivated = true where user_id = ${other.user_id}`;
  for (const body of [{ id: crypto.randomUUID() }, { _id: 2 ** 40 }, { id: other.user_id }]) {
    equal(
      failMessage(await call("get-user", body, { token: viewer.access_token })),
      "User not found",
    );
  }
  match(
    failMessage(await call("get-user", { id: "not-a-uuid" }, { token: viewer.access_token })),
    /^Invalid value for id/,
  );
});

test("account tools refuse API keys, which read only their owner's profile", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  for (const fn of ["update-user", "delete-user"]) {
    match(failMessage(await call(fn, {}, { token: apiKey }), 401), /API keys cannot call/);
  }
  equal(successData(await call("get-user", {}, { token: apiKey })).user_id, user.user_id);
  // Signed out, there is no own profile.
  match(failMessage(await call("get-user", {}), 401), /^Signed out: sign in/);
});

test("update-user changes only the fields given", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const subscriptions = [
    { source_id: 3, source_name: "Homebrew", added_at: "2026-01-01T00:00:00Z" },
  ];
  equal(
    successData(
      await call("update-user", {
        display_name: " Aria ",
        summary: "Plays bards",
        site_theme: { color: "#ff0000" },
        subscribed_content_sources: subscriptions,
      }, { token }),
    ),
    true,
  );
  equal(
    successData(await call("update-user", { image_url: "https://x.test/a.png" }, { token })),
    true,
  );
  const profile = successData(await call("get-user", {}, { token }));
  equal(profile.display_name, "Aria");
  equal(profile.summary, "Plays bards");
  equal(profile.image_url, "https://x.test/a.png");
  deepStrictEqual(profile.site_theme, { color: "#ff0000" });
  deepStrictEqual(profile.subscribed_content_sources, subscriptions);
  equal(successData(await call("update-user", { summary: null }, { token })), true);
  equal(successData(await call("get-user", {}, { token })).summary, null);
  equal(successData(await call("update-user", {}, { token })), true);
});

test("update-user can never raise the tier, set role flags or change ids, whatever the body says", async () => {
  const user = await makeUser();
  const [before] = await adminSql`select id, created_at from public.public_user
    where user_id = ${user.user_id}`;
  const res = await call("update-user", {
    display_name: "Still me",
    supporter_tier: 4,
    patreon: { tier: "GAME-MASTER" },
    is_admin: true,
    is_mod: true,
    is_developer: true,
    is_community_paragon: true,
    deactivated: true,
    id: 1,
    user_id: crypto.randomUUID(),
    created_at: "2000-01-01T00:00:00Z",
  }, { token: user.access_token });
  equal(successData(res), true);
  const [row] = await adminSql`select id, created_at, display_name, supporter_tier, is_admin,
    is_mod, is_developer, is_community_paragon, deactivated
    from public.public_user where user_id = ${user.user_id}`;
  deepStrictEqual({ ...row }, {
    id: before?.id,
    created_at: before?.created_at,
    display_name: "Still me",
    supporter_tier: 0,
    is_admin: false,
    is_mod: false,
    is_developer: false,
    is_community_paragon: false,
    deactivated: false,
  });
  // The database itself refuses these columns to the user, not only the endpoint.
  const claims = JSON.stringify({ sub: user.user_id, role: "authenticated" });
  for (const column of ["is_mod = true", "deactivated = true", "created_at = now()"]) {
    const refused = await adminSql.begin(async (tx) => {
      await tx`select set_config('role', ${REQUEST_ROLES.authenticated}, true),
                      set_config('request.jwt.claims', ${claims}, true)`;
      await tx.unsafe(`update public.public_user set ${column}`);
    }).then(() => null, (e) => e.code);
    equal(refused, "42501", `${column} is refused`);
  }
});

test("update-user refuses invalid values with a fail naming the field", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const cases: [unknown, RegExp][] = [
    [{ image_url: "javascript:alert(1)" }, /^Invalid value for image_url/],
    [{ display_name: "x".repeat(101) }, /^Invalid value for display_name/],
    [{ display_name: null }, /^Invalid value for display_name/],
    // A blank name is refused, not stored as "" (names are trimmed first).
    [
      { display_name: "" },
      /^Invalid value for display_name: expected 1 to 100 characters after trimming spaces$/,
    ],
    [{ display_name: "   " }, /^Invalid value for display_name: expected 1 to 100 characters/],
    [{ display_name: " " + "x".repeat(101) }, /^Invalid value for display_name: expected 1 to 100/],
    [{ site_theme: [] }, /^Invalid value for site_theme/],
    [{ subscribed_content_sources: [{ source_id: "7" }] }, /subscribed_content_sources/],
    [
      {
        subscribed_content_sources: [
          { source_id: 1, source_name: "A", added_at: "x" },
          { source_id: 1, source_name: "A", added_at: "y" },
        ],
      },
      /each source_id may appear only once/,
    ],
  ];
  for (const [body, expected] of cases) {
    match(failMessage(await call("update-user", body, { token })), expected);
  }
  const [{ display_name: kept } = { display_name: "" }] = await adminSql<
    { display_name: string }[]
  >`select display_name from public.public_user where user_id = ${user.user_id}`;
  match(kept, /\S/, "the stored name is untouched");
  equal(successData(await call("update-user", { display_name: " x".repeat(50) }, { token })), true);
  // The database also holds the subscription shape the subscriber count relies on.
  for (const bad of ['[{"source_id": "7"}]', '[{"name": "x"}]', '[[{"source_id": 7}]]', "[7]"]) {
    const refused = await adminSql`update public.public_user
      set subscribed_content_sources = ${bad}::jsonb where user_id = ${user.user_id}`
      .then(() => null, (e) => e.code);
    equal(refused, "23514", `${bad} is refused`);
  }
});

test("delete-user is refused while the user owns content sources, and nothing is deleted", async () => {
  const user = await makeUser({ tier: 2 });
  await adminSql`insert into public.content_source (name, user_id) values ('Mine', ${user.user_id})`;
  equal(
    failMessage(await call("delete-user", {}, { token: user.access_token })),
    "Delete or transfer your content sources first",
  );
  const [row] = await adminSql`select count(*)::int as n from public.public_user
    where user_id = ${user.user_id}`;
  equal(row?.n, 1);
});

/** Runs `fn` as the database owner with `user` as auth.uid(), so triggers see that user. */
async function asUser<T>(user: TestUser, fn: (tx: postgres.TransactionSql) => Promise<T>) {
  const claims = JSON.stringify({ sub: user.user_id, role: "authenticated" });
  return await adminSql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${claims}, true)`;
    return await fn(tx);
  });
}

/** What a user owns, table by table. */
async function holdings(user: TestUser): Promise<Record<string, number>> {
  const [row] = await adminSql`select
    (select count(*) from auth.users where id = ${user.user_id})::int as identities,
    (select count(*) from public.public_user where user_id = ${user.user_id})::int as profiles,
    (select count(*) from public.api_client where user_id = ${user.user_id})::int as clients,
    (select count(*) from private.api_key where user_id = ${user.user_id})::int as keys,
    (select count(*) from public.character_grant g join public.api_client c on c.id = g.client_id
      where c.user_id = ${user.user_id})::int as grants,
    (select count(*) from public.character where user_id = ${user.user_id})::int as characters,
    (select count(*) from public.campaign where user_id = ${user.user_id})::int as campaigns,
    (select count(*) from public.campaign_join_grant where user_id = ${user.user_id})::int
      as join_grants,
    (select count(*) from public.encounter where user_id = ${user.user_id})::int as encounters,
    (select count(*) from public.content_update where user_id = ${user.user_id})::int as proposals,
    (select count(*) from public.uploaded_file where user_id = ${user.user_id})::int as files`;
  return { ...row };
}

/** Gives `user` one of everything an account can own, and a character in `campaignOf`'s campaign. */
async function furnish(user: TestUser, campaignOf: number | null): Promise<number> {
  const { clientId } = await makeApiKey(user);
  return await asUser(user, async (tx) => {
    const [campaign] = await tx`insert into public.campaign (user_id, name)
      values (${user.user_id}, 'Table') returning id`;
    const target = campaignOf ?? campaign!.id;
    await tx`insert into public.campaign_join_grant (user_id, campaign_id)
      values (${user.user_id}, ${target})`;
    const [character] = await tx`insert into public.character (user_id, name, campaign_id)
      values (${user.user_id}, 'Hero', ${target}) returning id, campaign_id`;
    equal(character!.campaign_id, target);
    await tx`insert into public.character_grant (client_id, character_id)
      values (${clientId}, ${character!.id})`;
    await tx`insert into public.encounter (user_id, name, icon, color, combatants, meta_data)
      values (${user.user_id}, 'Ambush', 'sword', 'red', '{"list": []}', '{}')`;
    await tx`insert into public.content_update (user_id, type, ref_id, action, data,
        content_source_id)
      values (${user.user_id}, 'spell', 1, 'UPDATE', '{"name": "Kindle Sparks"}', 1)`;
    await tx`insert into public.uploaded_file (user_id, bucket, path, content_type, byte_size)
      values (${user.user_id}, 'portraits', ${`${user.user_id}/${"a".repeat(64)}.png`},
        'image/png', 10)`;
    return campaign!.id as number;
  });
}

test("delete-user removes the account and what it owns, and nothing of another user's", async () => {
  const user = await makeUser({ tier: 1 });
  const bystander = await makeUser({ tier: 1 });
  const { apiKey } = await makeApiKey(user);
  const doomedCampaign = await furnish(user, null);
  // The bystander plays a character in the deleted user's campaign.
  await furnish(bystander, doomedCampaign);
  const everything = {
    identities: 1,
    profiles: 1,
    clients: 2,
    keys: 2,
    grants: 1,
    characters: 1,
    campaigns: 1,
    join_grants: 1,
    encounters: 1,
    proposals: 1,
    files: 1,
  };
  deepStrictEqual(await holdings(user), everything);
  const bystanderBefore = await holdings(bystander);
  deepStrictEqual(bystanderBefore, { ...everything, clients: 1, keys: 1 });

  const deleted = successData(await call("delete-user", {}, { token: user.access_token }));
  deepStrictEqual(deleted, { userId: user.user_id });

  deepStrictEqual(
    await holdings(user),
    Object.fromEntries(Object.keys(everything).map((k) => [k, 0])),
  );
  // The bystander keeps everything; only the join grant to the deleted campaign goes with it,
  // and their character there simply leaves the campaign.
  deepStrictEqual(await holdings(bystander), { ...bystanderBefore, join_grants: 0 });
  const stranded = await adminSql`select campaign_id from public.character
    where user_id = ${bystander.user_id} and campaign_id is null`;
  equal(stranded.length, 1);

  match(
    failMessage(await call("get-user", {}, { token: user.access_token }), 401),
    /User not found/,
  );
  equal(
    failMessage(await call("get-content-versions", { ids: [1] }, { token: apiKey }), 401),
    "Invalid API Key",
  );
  equal(
    successData(await call("get-user", {}, { token: bystander.access_token })).user_id,
    bystander.user_id,
  );
});

test("update-user: site_theme's 4000 characters of JSON are counted as characters, an emoji one", async () => {
  const token = (await makeUser()).access_token;
  // {"c":"…"} is 8 characters around the emoji.
  equal(
    successData(await call("update-user", { site_theme: { c: "😀".repeat(3992) } }, { token })),
    true,
  );
  match(
    failMessage(await call("update-user", { site_theme: { c: "😀".repeat(3993) } }, { token })),
    /site_theme is limited to 4000 characters of JSON/,
  );
});
