/**
 * Third-party clients written against the reference service, replayed call by call as they make
 * them (headers, body, the fields they read): an assistant tool holding a user's API key, a
 * campaign app that imports a character from a pasted link with no credentials at all, and the
 * web app's own encounter and consent pages.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  adminSql,
  anonKey,
  call,
  type CallResult,
  failMessage,
  freshToken,
  makeApiKey,
  makeUser,
  randomIp,
  server,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import { fetchFrom, withinOneMinute } from "./support/http.ts";
import { ENCOUNTER_REQUIRED_FIELDS } from "@shared/encounters.ts";

const NO_ACCESS = "You do not have access to this character";
const SIGN_IN = /^Signed out: sign in/;

/** The assistant tool's call: its user's API key as the bearer, a JSON body. */
async function asTool(fn: string, body: unknown, apiKey: string): Promise<CallResult> {
  return await call(fn, body, { token: apiKey });
}

/**
 * The link importer's call: a bare POST of the JSON text, no Authorization, no apikey and no
 * content type of its own. It reads the HTTP status, then `status` and `data`.
 */
async function asLinkImporter(
  fn: string,
  body: unknown,
  ip = randomIp(),
): Promise<{ status: number; headers: Headers; body: { status: string; data: unknown } }> {
  const res = await fetchFrom(ip)(`${server.functionsUrl}/${fn}`, {
    method: "POST",
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function makeCharacter(user: TestUser, name: string, isPublic = false): Promise<number> {
  const created = successData(
    await call("create-character", { name }, { token: await freshToken(user) }),
  );
  if (isPublic) {
    await adminSql`update public.character set options = '{"is_public": true}'
                   where id = ${created.id}`;
  }
  return created.id;
}

// The assistant tool: who the key's owner is, and their campaigns.

test("get-user {} with an API key answers the key owner's profile without code or clients", async () => {
  const gm = await makeUser({ tier: 4 });
  const { apiKey } = await makeApiKey(gm);
  successData(await call("gm-regenerate-code", {}, { token: gm.access_token }));
  const signedIn = successData(await call("get-user", {}, { token: gm.access_token }));
  ok(signedIn.patreon.game_master.access_code, "the signed-in owner reads the group's code");
  equal(signedIn.api.clients.length, 1);

  const profile = successData(await asTool("get-user", {}, apiKey));
  equal(profile.user_id, gm.user_id);
  equal(profile.id, signedIn.id);
  equal(profile.display_name, signedIn.display_name);
  equal(profile.patreon.tier, "GAME-MASTER");
  equal(profile.patreon.game_master.access_code, null, "a key never learns the group's code");
  deepStrictEqual(profile.api, { clients: [] }, "a key never lists the API clients");
  ok(!JSON.stringify(profile).includes(signedIn.patreon.game_master.access_code));

  // The tool goes on to the owner's campaigns with the id it read.
  const campaign = successData(
    await call("create-campaign", { name: "Tool's table" }, { token: gm.access_token }),
  );
  const campaigns = successData(
    await asTool("find-campaign", { user_id: profile.user_id }, apiKey),
  );
  deepStrictEqual(campaigns.map((c: { id: number }) => c.id), [campaign.id]);
});

test("get-user with an API key takes only {}: another user's profile is not the key's", async () => {
  const owner = await makeUser();
  const other = await makeUser();
  const { apiKey } = await makeApiKey(owner);
  const [row] = await adminSql<{ id: number }[]>`
    select id from public.public_user where user_id = ${other.user_id}`;
  equal(
    failMessage(await asTool("get-user", { id: other.user_id }, apiKey)),
    "An API key reads only its owner's profile: send {}",
  );
  equal(
    failMessage(await asTool("get-user", { _id: row!.id }, apiKey)),
    "An API key reads only its owner's profile: send {}",
  );
});

test("an API key still cannot manage keys, grants or the account", async () => {
  const owner = await makeUser();
  const { apiKey, clientId } = await makeApiKey(owner);
  const character = await makeCharacter(owner, "Kept");
  const refused = {
    "create-api-client": { name: "another" },
    "delete-api-client": { id: clientId },
    "find-api-client": {},
    "grant-character-access": { client_id: clientId, user_id: owner.user_id, character_id: 1 },
    "revoke-character-access": { client_id: clientId, character_id: character },
    "update-user": { display_name: "Taken over" },
    "delete-user": {},
  };
  for (const [fn, body] of Object.entries(refused)) {
    match(failMessage(await asTool(fn, body, apiKey), 401), /^API keys cannot call/, fn);
  }
  const [client] = await adminSql`select id from public.api_client where id = ${clientId}`;
  ok(client, "the key's client is still there");
  const [profile] = await adminSql<{ display_name: string }[]>`
    select display_name from public.public_user where user_id = ${owner.user_id}`;
  ok(profile && profile.display_name !== "Taken over", "the profile is unchanged");
});

// The assistant tool reads characters by id lists.

test("find-character {id: [a, b]} with an API key answers the granted ones among them", async () => {
  const owner = await makeUser();
  const developer = await makeUser();
  const granted = await makeCharacter(owner, "Granted");
  const notGranted = await makeCharacter(owner, "Not granted");
  const { clientId, apiKey } = await makeApiKey(developer);
  successData(
    await call("grant-character-access", {
      client_id: clientId,
      user_id: developer.user_id,
      character_id: granted,
    }, { token: owner.access_token }),
  );
  const found = successData(await asTool("find-character", { id: [granted, notGranted] }, apiKey));
  deepStrictEqual(found.map((c: { id: number; name: string }) => [c.id, c.name]), [
    [granted, "Granted"],
  ]);
  deepStrictEqual(successData(await asTool("find-character", { id: [notGranted] }, apiKey)), []);
  // One integer id without a grant is still refused.
  equal(failMessage(await asTool("find-character", { id: notGranted }, apiKey), 403), NO_ACCESS);
  equal(successData(await asTool("find-character", { id: granted }, apiKey)).name, "Granted");
});

// The link importer: no credentials at all.

test("find-character with no credentials reads a public character, and nothing private", async () => {
  const owner = await makeUser();
  const shown = await makeCharacter(owner, "Shown", true);
  const hidden = await makeCharacter(owner, "Hidden");
  const publicRead = await asLinkImporter("find-character", { id: shown });
  equal(publicRead.status, 200);
  equal(publicRead.body.status, "success");
  equal((publicRead.body.data as { name: string }).name, "Shown");
  equal(publicRead.headers.get("x-ratelimit-limit"), "30");

  // A private character and a missing one answer the same.
  const [missing] = await adminSql<{ id: number }[]>`
    select coalesce(max(id), 0) + 1000 as id from public.character`;
  const privateRead = await asLinkImporter("find-character", { id: hidden });
  const missingRead = await asLinkImporter("find-character", { id: missing!.id });
  deepStrictEqual(privateRead.body, { status: "success", data: null });
  deepStrictEqual(missingRead.body, privateRead.body);
  equal(privateRead.status, missingRead.status);
  deepStrictEqual((await asLinkImporter("find-character", {})).body.data, []);
});

test("a write with no credentials is refused with a sign-in message and writes nothing", async () => {
  const owner = await makeUser();
  const shown = await makeCharacter(owner, "Shown", true);
  for (
    const [fn, body] of [
      ["create-character", { name: "Nope" }],
      ["create-campaign", { name: "Nope" }],
      ["create-content-source", { name: "Nope" }],
      ["get-user", {}],
      ["gm-regenerate-code", {}],
    ] as const
  ) {
    const res = await asLinkImporter(fn, body);
    equal(res.status, 401, fn);
    equal(res.body.status, "fail", fn);
    match((res.body.data as { message: string }).message, SIGN_IN, fn);
  }
  const [row] = await adminSql<{ name: string }[]>`
    select name from public.character where id = ${shown}`;
  equal(row?.name, "Shown");
});

test("no credentials and the anon key get the same answers", async () => {
  const key = await anonKey();
  const owner = await makeUser();
  const shown = await makeCharacter(owner, "Shown", true);
  for (
    const [fn, body] of [
      ["find-character", { id: shown }],
      ["find-content-source", {}],
      ["create-character", { name: "Nope" }],
      ["update-character", { id: shown, name: "Renamed" }],
      ["update-content-update", { id: 1, state: "APPROVED" }],
    ] as const
  ) {
    const bare = await asLinkImporter(fn, body);
    const anon = await call(fn, body, { token: key, headers: { apikey: key } });
    equal(bare.status, anon.status, fn);
    deepStrictEqual(bare.body, anon.body, fn);
  }
});

test("calls with no credentials share their address's budget of 30 a minute", async () => {
  await withinOneMinute(10_000);
  const ip = randomIp();
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++) {
    statuses.push((await asLinkImporter("find-character", {}, ip)).status);
  }
  deepStrictEqual(statuses, [...Array(30).fill(200), 429]);
  equal((await asLinkImporter("find-character", {})).status, 200, "another address goes on");
});

// The assistant tool narrows by name itself: it needs candidates.

test("find-ancestry and find-background match a part of the name in any case", async () => {
  const owner = await makeUser();
  const { apiKey } = await makeApiKey(owner);
  for (const [fn, part] of [["find-ancestry", "hearth"], ["find-background", "lamp"]] as const) {
    const found = successData(await asTool(fn, { name: part }, apiKey));
    ok(found.length > 0, `${fn} {name: "${part}"} finds candidates`);
    for (const record of found) match(record.name, new RegExp(part, "i"), fn);
  }
});

test("a part of a name is ordered by name then id, a record of that whole name first", async () => {
  const author = await makeUser({ tier: 2 });
  const source = successData(
    await call("create-content-source", { name: "Partial names" }, { token: author.access_token }),
  );
  const trait = (name: string) =>
    adminSql<{ id: number }[]>`
      insert into public.trait (name, description, content_source_id)
      values (${name}, '', ${source.id}) returning id`;
  const [bonfire] = await trait("Bonfire");
  const [fire] = await trait("Fire");
  const [fireproof] = await trait("Fire-Proof");
  const [again] = await trait("fire");
  await trait("Water");
  const found = successData(
    await call("find-trait", { name: "FIRE", content_sources: [source.id] }, {
      token: author.access_token,
    }),
  );
  deepStrictEqual(found.map((t: { id: number }) => t.id), [
    fire!.id,
    again!.id,
    bonfire!.id,
    fireproof!.id,
  ]);
  // Nothing in a part is a pattern.
  deepStrictEqual(
    successData(
      await call("find-trait", { name: "%", content_sources: [source.id] }, {
        token: author.access_token,
      }),
    ),
    [],
  );
});

test("find-spell and find-language keep name an exact match in any case", async () => {
  const user = await makeUser();
  const [spell] = await adminSql<{ name: string }[]>`
    select s.name from public.spell s
    where s.content_source_id in (select o.id from private.official_source_ids() o(id))
    order by s.id limit 1`;
  const [language] = await adminSql<{ name: string }[]>`
    select l.name from public.language l
    where l.content_source_id in (select o.id from private.official_source_ids() o(id))
    order by l.id limit 1`;
  for (
    const [fn, name] of [["find-spell", spell!.name], ["find-language", language!.name]] as const
  ) {
    const whole = successData(
      await call(fn, { name: name.toUpperCase() }, { token: user.access_token }),
    );
    ok(
      whole.length > 0 &&
        whole.every((r: { name: string }) => r.name.toLowerCase() === name.toLowerCase()),
      fn,
    );
    deepStrictEqual(
      successData(await call(fn, { name: name.slice(0, -1) }, { token: user.access_token })),
      [],
      `${fn}: a part of a name finds nothing`,
    );
  }
});

// The assistant tool creates encounters without presentation fields.

test("create-encounter with only a name and a campaign gets the defaults", async () => {
  const gm = await makeUser({ tier: 1 });
  const { apiKey } = await makeApiKey(gm);
  const campaign = successData(
    await call("create-campaign", { name: "Table" }, { token: gm.access_token }),
  );
  const created = successData(
    await asTool("create-encounter", { name: "Ambush", campaign_id: campaign.id }, apiKey),
  );
  ok(Number.isInteger(created.id));
  equal(created.name, "Ambush");
  equal(created.campaign_id, campaign.id);
  equal(created.icon, "combat");
  equal(created.color, "#359fdf");
  deepStrictEqual(created.combatants, { list: [] });
  deepStrictEqual(created.meta_data, {});
  const [found] = successData(await asTool("find-encounter", { id: created.id }, apiKey));
  deepStrictEqual(found, created);
});

test("create-encounter requires what the database requires: only the name", async () => {
  const columns = await adminSql<{ name: string }[]>`
    select a.attname as name from pg_attribute a
    where a.attrelid = 'public.encounter'::regclass and a.attnum > 0 and not a.attisdropped
      and a.attnotnull and not a.atthasdef and a.attidentity = ''`;
  deepStrictEqual(columns.map((c) => c.name), [...ENCOUNTER_REQUIRED_FIELDS]);
});

// The web app's encounter page: no allies means party_level null.

test("create-encounter keeps the web client's meta_data and combatants as it writes them", async () => {
  const gm = await makeUser({ tier: 1 });
  const campaign = successData(
    await call("create-campaign", { name: "Table" }, { token: gm.access_token }),
  );
  const token = await freshToken(gm);
  const creature = {
    _id: crypto.randomUUID(),
    type: "CREATURE",
    ally: false,
    initiative: null,
    creature: { id: 1, name: "Goblin", level: -1 },
    data: { hp_current: 6 },
  };
  const created = successData(
    await call("create-encounter", {
      id: -1,
      created_at: "",
      user_id: "",
      name: "Combat",
      icon: "combat",
      color: "#359fdf",
      campaign_id: campaign.id,
      combatants: { list: [creature] },
      meta_data: { description: "", party_level: null, party_size: 0 },
    }, { token, headers: { apikey: "unused" } }),
  );
  deepStrictEqual(created.meta_data, { description: "", party_level: null, party_size: 0 });
  // The page saves the whole row back (debounced), with the creature it added.
  const saved = successData(
    await call("create-encounter", {
      ...created,
      combatants: { list: [creature, { ...creature, _id: "second", initiative: 14.5 }] },
      meta_data: { description: "At the ford", party_level: null, party_size: 0 },
    }, { token }),
  );
  equal(saved.combatants.list.length, 2);
  // After a reload, the creatures are there.
  const [reloaded] = successData(
    await call("find-encounter", { campaign_id: campaign.id }, { token }),
  );
  deepStrictEqual(reloaded.combatants, saved.combatants);
  deepStrictEqual(reloaded.meta_data, {
    description: "At the ford",
    party_level: null,
    party_size: 0,
  });
});

// The web app's consent page looks a profile up by UUID.

test("get-user {_id} takes a user's UUID as well as a profile id", async () => {
  const viewer = await makeUser();
  const developer = await makeUser();
  const [row] = await adminSql<{ id: number }[]>`
    select id from public.public_user where user_id = ${developer.user_id}`;
  const byUuid = successData(
    await call("get-user", { _id: developer.user_id }, { token: viewer.access_token }),
  );
  equal(byUuid.user_id, developer.user_id);
  equal(byUuid.id, row!.id);
  deepStrictEqual(byUuid.api, { clients: [] });
  const byNumber = successData(
    await call("get-user", { _id: String(row!.id) }, { token: viewer.access_token }),
  );
  deepStrictEqual(byNumber, byUuid);
  equal(
    failMessage(
      await call("get-user", { _id: crypto.randomUUID() }, { token: viewer.access_token }),
    ),
    "User not found",
  );
});
