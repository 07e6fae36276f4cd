import { deepStrictEqual, equal, match, notEqual, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
} from "./_harness.ts";

// The web app beyond its core flows (docs/web-client.md, "What the web app needs of this
// service"): each test replays the calls the reference frontend makes, with its bodies, and checks
// what the page then reads.

/** The content source ids the client hard-codes (frontend/src/constants/data.ts). */
const PATHFINDER_CORE_ID = 1;
const COMMON_CORE_ID = 3;
/** The seed inserts its items with ids 1 to 5. */
const SEEDED_ITEMS = 5;
const STARFINDER_CORE_ID = 579;

test("web app: a given item has the meta_data.bulk the sheet reads (AddItemsModal, ItemIcon, inv-utils)", async () => {
  const player = await makeUser();
  const token = player.access_token;
  // The builder loads the items of the character's sources, the shared core always among them.
  const character = successData(await call("create-character", {}, { token }));
  const sources = [...new Set([COMMON_CORE_ID, ...character.content_sources.enabled])];
  const items = successData(await call("find-item", { content_sources: sources }, { token }));
  // The seed's own items (ids it states); other tests add records of their own to official books.
  const seededItems = items.filter((i: { id: number }) => i.id <= SEEDED_ITEMS);
  ok(seededItems.length >= 4, "the seed's published items are offered");
  for (const item of seededItems) {
    // `item.meta_data?.bulk.capacity` and `.bulk.ignored` are read without a guard on `bulk`.
    equal(typeof item.meta_data.bulk, "object", `${item.name}: meta_data.bulk`);
    ok(item.meta_data.bulk !== null, `${item.name}: meta_data.bulk`);
    ok(item.price !== null && typeof item.price === "object", `${item.name}: price`);
  }
  // Giving the item: the sheet saves it in the inventory and reads it back from find-character.
  const given = items.find((i: { id: number }) => i.id === 1);
  const inventory = { coins: { cp: 0, sp: 0, gp: 15, pp: 0 }, items: [{ id: "x1", item: given }] };
  const [saved] = successData(
    await call("update-character", { id: character.id, inventory }, { token }),
  );
  deepStrictEqual(saved.inventory.items[0].item.meta_data.bulk, given.meta_data.bulk);
});

test("web app: create-character gives spells null and the dice roller and prerequisite detection on", async () => {
  const player = await makeUser();
  const token = player.access_token;
  // CharactersPage.tsx createCharacter(): only these two fields.
  const created = successData(
    await call("create-character", {
      meta_data: { reset_hp: true },
      details: { background_image_url: "https://example.test/bg.png" },
    }, { token }),
  );
  equal(created.spells, null, "the Rest and spell handlers build their structure from null");
  deepStrictEqual(created.options, { dice_roller: true, auto_detect_prerequisites: true });
  deepStrictEqual(created.meta_data, { reset_hp: true });
  const [listed] = successData(await call("find-character", { id: [created.id] }, { token }));
  equal(listed.spells, null);
  // Rest (use-character.tsx): `spells ?? {slots: [], list: [], focus_point_current, innate_casts}`.
  const rested = { slots: [], list: [], focus_point_current: 1, innate_casts: [] };
  const [afterRest] = successData(
    await call("update-character", {
      id: created.id,
      spells: rested,
      expected_updated_at: listed.updated_at,
    }, { token }),
  );
  deepStrictEqual(afterRest.spells, rested);
  // The characters page's copy sends the fetched character back without its id.
  const copy = successData(
    await call("create-character", {
      ...created,
      id: undefined,
      name: `(Copy) ${created.name}`,
      roll_history: undefined,
    }, { token }),
  );
  notEqual(copy.id, created.id);
  equal(copy.spells, null);
  deepStrictEqual(copy.options, created.options);
  // A choice the owner made stays as made.
  const off = successData(
    await call("create-character", { options: { dice_roller: false } }, { token }),
  );
  deepStrictEqual(off.options, { dice_roller: false });
});

test("web app: the official sources have the ids the client names, and homebrew never takes them", async () => {
  const author = await makeUser({ tier: 2 });
  const homebrew = successData(
    await call("create-content-source", {
      name: "First Homebrew",
      is_published: true,
      require_key: false,
    }, { token: author.access_token }),
  );
  ok(
    ![PATHFINDER_CORE_ID, COMMON_CORE_ID, STARFINDER_CORE_ID].includes(homebrew.id),
    `a homebrew source took reserved id ${homebrew.id}`,
  );
  successData(
    await call("create-ability-block", {
      content_source_id: homebrew.id,
      name: "Homebrew Stride",
      type: "action",
      actions: "ONE-ACTION",
      description: "Not official.",
    }, { token: author.access_token }),
  );
  // A fresh user's builder: the shared core (always) and the enabled books.
  const player = await makeUser();
  const token = player.access_token;
  const character = successData(await call("create-character", {}, { token }));
  ok(character.content_sources.enabled.includes(PATHFINDER_CORE_ID), "Pathfinder is played");
  ok(!character.content_sources.enabled.includes(STARFINDER_CORE_ID), "Starfinder is not");
  const sources = [...new Set([COMMON_CORE_ID, ...character.content_sources.enabled])];
  const blocks = successData(
    await call("find-ability-block", { content_sources: sources }, { token }),
  );
  ok(blocks.length > 0);
  for (const block of blocks) {
    ok(sources.includes(block.content_source_id), `${block.name} is from an enabled source`);
  }
  const [core] = successData(
    await call("find-content-source", { id: [COMMON_CORE_ID] }, { token }),
  );
  equal(core.id, COMMON_CORE_ID);
  equal(core.user_id, null, "the shared core is official");
  // The "Includes Shared Content" drawer of the Pathfinder core opens source 3.
  const pathfinder = successData(
    await call("find-content-source", { id: PATHFINDER_CORE_ID }, { token }),
  );
  equal(pathfinder.group, "pathfinder-core");
  equal(pathfinder.user_id, null);
  // "Apply Settings" treats what is not an official book as homebrew to subscribe to.
  const books = successData(
    await call("find-content-source", { homebrew: false, published: true }, { token }),
  );
  ok(books.some((b: { id: number }) => b.id === COMMON_CORE_ID));
  ok(!books.some((b: { id: number }) => b.id === homebrew.id));
});

test("web app: the Developer page's + makes a client whose key works, and its list stays in step", async () => {
  const developer = await makeUser();
  const token = developer.access_token;
  const before = successData(await call("get-user", {}, { token }));
  // AccountPage.tsx: "+" appends an entry with an id and a key the browser drew; the debounced
  // save sends the whole profile with the `api` block 500 ms later.
  const apiKey = crypto.randomUUID();
  const entry = {
    name: "New Client",
    id: crypto.randomUUID().split("-")[0],
    api_key: apiKey,
    image_url: "icon|||abstract064|||#359fdf",
  };
  const page = {
    display_name: before.display_name,
    summary: before.summary,
    image_url: before.image_url,
    background_image_url: before.background_image_url,
    site_theme: before.site_theme,
  };
  const withNew = { ...page, api: { ...before.api, clients: [...before.api.clients, entry] } };
  equal(successData(await call("update-user", withNew, { token })), true);
  // Any later change on the same page sends the same list again: still one client.
  equal(successData(await call("update-user", { ...withNew, summary: "hi" }, { token })), true);
  const reloaded = successData(await call("get-user", {}, { token }));
  equal(reloaded.api.clients.length, 1, "the client is there after a reload");
  const [client] = reloaded.api.clients;
  equal(client.name, "New Client");
  equal(JSON.stringify(reloaded).includes(apiKey), false, "the key is never shown again");
  const [stored] = await adminSql<{ key_hash: string }[]>`
    select key_hash from private.api_key where client_id = ${client.id}`;
  ok(stored && stored.key_hash !== apiKey, "only a hash is stored");
  // The key the page showed answers as that client.
  successData(await call("find-trait", { id: 1 }, { token: apiKey }));
  const info = successData(
    await call("get-api-client-info", { client_id: client.id, user_id: developer.user_id }, {
      token,
    }),
  );
  equal(info.name, "New Client");

  // The authorization URL the page shows before any reload carries the id the browser drew:
  // `/oauth/access?user_id=${user.id}&client_id=${client.id}&character_id=<ID>`. A player who
  // follows it authorizes through the consent page's update-character (OAuthAccessPage.tsx).
  const player = await makeUser();
  const sheet = successData(
    await call("create-character", { name: "Shared" }, { token: player.access_token }),
  );
  const url = new URL(
    `/oauth/access?user_id=${before.id}&client_id=${entry.id}&character_id=${sheet.id}`,
    "https://example.test",
  );
  successData(
    await call("update-character", {
      id: url.searchParams.get("character_id"),
      details: {
        ...sheet.details,
        api_clients: {
          client_access: [{
            publicUserId: url.searchParams.get("user_id"),
            clientId: url.searchParams.get("client_id"),
            addedAt: Date.now(),
          }],
        },
      },
    }, { token: player.access_token }),
  );
  const readByClient = successData(
    await call("find-character", { id: sheet.id }, { token: apiKey }),
  );
  equal(readByClient.name, "Shared", "the consent through the page's first URL granted");

  // Edit: a new name and description, then a new key drawn in the modal.
  const renamed = { ...client, name: "Sync tool", description: "keeps sheets in step" };
  successData(await call("update-user", { ...page, api: { clients: [renamed] } }, { token }));
  const afterRename = successData(await call("get-user", {}, { token })).api.clients;
  equal(afterRename.length, 1);
  equal(afterRename[0].name, "Sync tool");
  equal(afterRename[0].description, "keeps sheets in step");
  const newKey = crypto.randomUUID();
  successData(
    await call("update-user", { ...page, api: { clients: [{ ...renamed, api_key: newKey }] } }, {
      token,
    }),
  );
  successData(await call("find-trait", { id: 1 }, { token: newKey }));
  equal(
    failMessage(await call("find-trait", { id: 1 }, { token: apiKey }), 401),
    "Invalid API Key, no client found",
  );

  // Delete: the entry leaves the list; its key stops working.
  successData(await call("update-user", { ...page, api: { clients: [] } }, { token }));
  deepStrictEqual(successData(await call("get-user", {}, { token })).api.clients, []);
  equal(
    failMessage(await call("find-trait", { id: 1 }, { token: newKey }), 401),
    "Invalid API Key, no client found",
  );
});

test("web app: the Developer page's keys keep the key rules", async () => {
  const developer = await makeUser();
  const token = developer.access_token;
  const clients = (apiKey: string) => ({
    api: { clients: [{ name: "New Client", id: "a1b2c3d4", api_key: apiKey }] },
  });
  for (const weak of ["not-a-key", "00000000-0000-0000-0000-000000000000", "A".repeat(36)]) {
    match(
      failMessage(await call("update-user", clients(weak), { token })),
      /^Invalid value for api\.clients\.0\.api_key: expected a random \(version 4\) UUID/,
    );
  }
  // A key another account holds (here one the server issued) is refused, not shared.
  const other = await makeUser();
  const { apiKey } = await makeApiKey(other);
  const taken = crypto.randomUUID();
  successData(await call("update-user", clients(taken), { token: other.access_token }));
  equal(
    failMessage(await call("update-user", clients(taken), { token })),
    "API key already in use: draw a new one",
  );
  deepStrictEqual(successData(await call("get-user", {}, { token })).api.clients, []);
  // Only a signed-in user manages clients: update-user takes no API key.
  equal(
    failMessage(await call("update-user", clients(crypto.randomUUID()), { token: apiKey }), 401),
    "API keys cannot call this endpoint: sign in and send your access token",
  );
  // Without `clients` the list is left alone.
  const kept = await makeApiKey(developer);
  successData(await call("update-user", { display_name: "Dev", api: {} }, { token }));
  successData(await call("update-user", { display_name: "Dev" }, { token }));
  equal(successData(await call("get-user", {}, { token })).api.clients.length, 1);
  successData(await call("find-trait", { id: 1 }, { token: kept.apiKey }));
});

test("web app: at ten clients, a save that drops one and adds one keeps ten", async () => {
  const developer = await makeUser();
  const token = developer.access_token;
  const drawn = Array.from({ length: 10 }, (_, i) => ({
    name: `Client ${i}`,
    id: crypto.randomUUID().split("-")[0],
    api_key: crypto.randomUUID(),
  }));
  successData(await call("update-user", { api: { clients: drawn } }, { token }));
  const listed = successData(await call("get-user", {}, { token })).api.clients;
  equal(listed.length, 10);
  // Delete on the first entry and "+" before the debounced save: one save carries both.
  const kept = listed.filter((c: { name: string }) => c.name !== "Client 0");
  const replacement = { name: "New Client", id: "0a1b2c3d", api_key: crypto.randomUUID() };
  successData(
    await call("update-user", { api: { clients: [...kept, replacement] } }, { token }),
  );
  const after = successData(await call("get-user", {}, { token })).api.clients;
  deepStrictEqual(
    after.map((c: { name: string }) => c.name).sort(),
    [...kept.map((c: { name: string }) => c.name), "New Client"].sort(),
  );
  successData(await call("find-trait", { id: 1 }, { token: replacement.api_key }));
  equal(
    failMessage(await call("find-trait", { id: 1 }, { token: drawn[0]!.api_key }), 401),
    "Invalid API Key, no client found",
  );
});

test("web app: a GAME-MASTER's share link has a code from the moment of the tier", async () => {
  for (const gm of [await makeUser({ tier: 4 }), await makeUser({ tier: 1 })]) {
    // A supporter who moves up to the GAME-MASTER tier gets a code with it.
    await adminSql`update public.public_user set supporter_tier = 4 where user_id = ${gm.user_id}`;
    const user = successData(await call("get-user", {}, { token: gm.access_token }));
    // AccountPage.tsx: `/gm-share/${user.user_id}?code=${user.patreon?.game_master?.access_code}`
    const shareUrl = `/gm-share/${user.user_id}?code=${user.patreon?.game_master?.access_code}`;
    match(shareUrl, /\?code=[0-9a-z]{12}$/);
    // The link admits a player; Regenerate still replaces the code.
    const player = await makeUser();
    const code = new URL(shareUrl, "https://example.test").searchParams.get("code");
    successData(
      await call("gm-add-to-group", { gm_user_id: gm.user_id, access_code: code }, {
        token: player.access_token,
      }),
    );
    successData(await call("gm-regenerate-code", {}, { token: gm.access_token }));
    const after = successData(await call("get-user", {}, { token: gm.access_token }));
    notEqual(after.patreon.game_master.access_code, code);
  }
  const supporter = await makeUser({ tier: 3 });
  equal(
    successData(await call("get-user", {}, { token: supporter.access_token })).patreon.game_master,
    null,
  );
});
