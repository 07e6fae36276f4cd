import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import type postgres from "postgres";
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
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";
import { callSignedOut } from "./support/signed_out.ts";

const BUCKETS = [
  "ability_blocks",
  "ancestries",
  "archetypes",
  "backgrounds",
  "classes",
  "creatures",
  "hazards",
  "items",
  "languages",
  "spells",
  "traits",
  "versatile_heritages",
  "class_archetypes",
];

/** Inserts one row as the database owner (row-level security does not apply) and returns its id. */
async function insert(table: string, values: Record<string, unknown>): Promise<number> {
  const columns = Object.keys(values).map((c) => `"${c}"`).join(", ");
  const [row] = await adminSql.unsafe(
    `insert into public."${table}" (${columns})
     select ${columns} from jsonb_populate_record(null::public."${table}", $1::jsonb)
     returning id`,
    [values as never],
  );
  return Number(row?.id);
}

/** The fixture's rows, by role. */
type RowName =
  | "fireTrait"
  | "coldTrait"
  | "focusTrait"
  | "fighterTrait"
  | "fireball"
  | "barrage"
  | "fyreball"
  | "lance"
  | "prison"
  | "unfocused"
  | "longsword"
  | "buckler"
  | "powerAttack"
  | "reactiveStrike"
  | "drake"
  | "wyrm"
  | "trap"
  | "warden"
  | "emberkin"
  | "firebrand"
  | "watcher"
  | "ignan"
  | "ifrit"
  | "flameOracle"
  | "taggedOfficial"
  | "taggedDraft"
  | "taggedHomebrew";

interface Fixture {
  /** A unique word in the names of rows that must be found without listing a source. */
  tag: string;
  official: number;
  unpublished: number;
  homebrew: number;
  alice: TestUser;
  bob: TestUser;
  ids: Record<RowName, number>;
}

let fixturePromise: Promise<Fixture> | null = null;

/** Content in its own official source, so other tests' rows never change these results. */
function fixture(): Promise<Fixture> {
  fixturePromise ??= buildFixture();
  return fixturePromise;
}

async function buildFixture(): Promise<Fixture> {
  // Digits only after the prefix, so the tag never contains a letter the filters below look for.
  const tag = `Qz${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;
  const alice = await makeUser({ tier: 2 });
  const bob = await makeUser({ tier: 2 });
  const official = await insert("content_source", { name: "Search Core", is_published: true });
  const unpublished = await insert("content_source", { name: "Search Draft", is_published: false });
  const homebrew = await insert("content_source", {
    name: "Alice's Notes",
    user_id: alice.user_id,
    is_published: false,
  });
  const ids = {} as Record<RowName, number>;
  const src = { content_source_id: official };
  ids.fireTrait = await insert("trait", { ...src, name: "Fire", description: "Burning things." });
  ids.coldTrait = await insert("trait", { ...src, name: "Cold", description: "Freezing things." });
  ids.focusTrait = await insert("trait", { ...src, name: "Focus", description: "Focus spells." });
  ids.fighterTrait = await insert("trait", { ...src, name: "Fighter", description: "Fighters." });

  ids.fireball = await insert("spell", {
    ...src,
    name: "Fireball",
    rank: 3,
    traditions: ["arcane", "primal"],
    traits: [ids.fireTrait],
    description: "A roaring blast of fire explodes at a point you choose.",
    cast: "two-actions",
    range: "500 feet",
    area: "20-foot burst",
    defense: "basic Reflex",
  });
  ids.barrage = await insert("spell", {
    ...src,
    name: "Fireball Barrage",
    rank: 5,
    rarity: "UNCOMMON",
    traditions: ["arcane"],
    traits: [ids.fireTrait],
    description: "Several burning spheres rain down on your enemies.",
    range: "120 feet",
    area: "10-foot bursts",
  });
  ids.fyreball = await insert("spell", {
    ...src,
    name: "Fyreball",
    rank: 1,
    traditions: ["divine"],
    description: "A holy flame scorches a single foe.",
    targets: "1 creature",
    duration: "1 minute",
    cast: "one-action",
    meta_data: { focus: true },
  });
  ids.lance = await insert("spell", {
    ...src,
    name: "Ember Lance",
    rank: 2,
    availability: "LIMITED",
    description: "You hurl a lance of flame, much like a small fireball.",
    requirements: "You hold a wand",
    cost: "a pinch of ash",
    trigger: "An enemy approaches",
    meta_data: { ritual: true },
  });
  ids.prison = await insert("spell", {
    ...src,
    name: "Glacial Prison",
    rank: 4,
    traits: [ids.coldTrait, ids.focusTrait],
    description: "Cold ice traps the target in crystal, 100% of the time_ maybe.",
  });
  ids.unfocused = await insert("spell", {
    ...src,
    name: "Frost Whisper",
    rank: 4,
    traits: [ids.focusTrait],
    description: "A whisper of frost.",
    meta_data: { focus: false },
  });

  ids.longsword = await insert("item", {
    ...src,
    name: "Flaming Longsword",
    level: 5,
    group: "WEAPON",
    size: "MEDIUM",
    bulk: "1",
    hands: "1",
    usage: "held in 1 hand",
    craft_requirements: "Supply fire essence",
    traits: [ids.fireTrait],
    description: "This blade bursts into fire.",
  });
  ids.buckler = await insert("item", {
    ...src,
    name: "Frost Buckler",
    level: 2,
    group: "SHIELD",
    size: "SMALL",
    bulk: "L",
    hands: "1",
    usage: "strapped to one arm",
    rarity: "RARE",
    availability: "RESTRICTED",
    description: "A small shield rimmed with ice.",
  });

  ids.powerAttack = await insert("ability_block", {
    ...src,
    name: "Power Attack",
    type: "feat",
    level: 1,
    actions: "TWO-ACTIONS",
    prerequisites: ["trained in Athletics"],
    frequency: "once per round",
    access: "member of the guild",
    special: "You can select this feat more than once.",
    traits: [ids.fighterTrait],
    description: "You unleash a particularly powerful attack.",
  });
  ids.reactiveStrike = await insert("ability_block", {
    ...src,
    name: "Reactive Strike",
    type: "action",
    level: 6,
    actions: "REACTION",
    trigger: "A creature within reach uses a manipulate action",
    requirements: "You are wielding a melee weapon",
    prerequisites: ["trained in Athletics", "expert in Perception"],
    cost: "your reaction",
    description: "You lash out at a foe that leaves an opening.",
  });

  ids.drake = await insert("creature", {
    ...src,
    name: "Fire Drake",
    level: 7,
    rarity: "UNCOMMON",
  });
  ids.wyrm = await insert("creature", { ...src, name: "Frost Wyrm", level: 12 });
  ids.trap = await insert("hazard", { ...src, name: "Fire Trap", level: 2 });
  // Records that carry a trait of their own name a given one, so no trait joins the fixture's.
  const linked = { ...src, trait_id: ids.fighterTrait };
  ids.warden = await insert("class", {
    ...linked,
    name: "Fire Warden",
    description: "Keeps flame.",
  });
  ids.emberkin = await insert("ancestry", {
    ...linked,
    name: "Emberkin",
    description: "Fire folk.",
  });
  ids.firebrand = await insert("archetype", {
    ...linked,
    name: "Firebrand Archer",
    description: "Arrows of fire.",
  });
  ids.watcher = await insert("background", {
    ...src,
    name: "Fire Watcher",
    description: "You watched for fire.",
  });
  ids.ignan = await insert("language", { ...src, name: "Ignan", description: "Tongue of fire." });
  ids.ifrit = await insert("versatile_heritage", {
    ...linked,
    name: "Ifrit",
    description: "Touched by elemental fire.",
  });
  ids.flameOracle = await insert("class_archetype", {
    ...src,
    name: "Flame Oracle",
    description: "An oracle of fire.",
  });

  // Rows found only by their unique tag: official published, official unpublished, homebrew.
  ids.taggedOfficial = await insert("spell", {
    ...src,
    name: `${tag} Beacon`,
    rank: 1,
    description: "Visible to everyone.",
  });
  ids.taggedDraft = await insert("spell", {
    content_source_id: unpublished,
    name: `${tag} Draft`,
    rank: 1,
    description: "Not published yet.",
  });
  ids.taggedHomebrew = await insert("spell", {
    content_source_id: homebrew,
    name: `${tag} Secret`,
    rank: 1,
    description: "Alice's unpublished homebrew.",
  });
  return { tag, official, unpublished, homebrew, alice, bob, ids };
}

/** Calls search-data as a signed-in user with a token of its own (its own rate budget). */
async function search(body: Record<string, unknown>, user?: TestUser) {
  const f = await fixture();
  return await call("search-data", body, { token: await freshToken(user ?? f.bob) });
}

/** Simple-mode search restricted to the fixture's source; returns the data. */
async function simple(text: string, extra: Record<string, unknown> = {}) {
  const f = await fixture();
  return successData(await search({ text, content_sources: [f.official], ...extra }));
}

function names(rows: { name: string }[]): string[] {
  return rows.map((r) => r.name);
}

test("search-data: simple mode ranks exact name, then prefix, then fuzzy and text matches", async () => {
  const data = await simple("fireball");
  const spells = names(data.spells);
  deepStrictEqual(spells.slice(0, 2), ["Fireball", "Fireball Barrage"]);
  ok(spells.includes("Ember Lance"), "the description mentions fireball");
  ok(spells.includes("Fyreball"), "a similar name matches");
  equal(spells.length, 4);
});

test("search-data: simple mode tolerates typos in names", async () => {
  for (const typo of ["firebal", "fierball", "Fireblal", "glacail prison"]) {
    const data = await simple(typo);
    const expected = typo.startsWith("glac") ? "Glacial Prison" : "Fireball";
    equal(data.spells[0]?.name, expected, `${typo} finds ${expected}`);
  }
  const creatures = names((await simple("fire drak")).creatures);
  equal(creatures[0], "Fire Drake");
});

test("search-data: simple mode matches description words with English stemming", async () => {
  deepStrictEqual(names((await simple("exploding")).spells), ["Fireball"]);
  deepStrictEqual(names((await simple("scorching foes")).spells), ["Fyreball"]);
});

test("search-data: simple mode supports quoted phrases, -exclusions and word* prefixes", async () => {
  deepStrictEqual(names((await simple('"roaring blast"')).spells), ["Fireball"]);
  deepStrictEqual(names((await simple('"blast roaring"')).spells), []);
  const excluded = names((await simple("fireball -barrage")).spells);
  ok(excluded.includes("Fireball"));
  ok(!excluded.includes("Fireball Barrage"));
  ok(!names((await simple("fireball -explodes")).spells).includes("Fireball"), "stemmed exclusion");
  deepStrictEqual(names((await simple("scorch*")).spells), ["Fyreball"]);
  deepStrictEqual(names((await simple("crys*")).spells), ["Glacial Prison"]);
});

test("search-data: simple mode fills every bucket with trimmed rows", async () => {
  const f = await fixture();
  const data = await simple("fire");
  deepStrictEqual(Object.keys(data).sort(), [...BUCKETS].sort());
  deepStrictEqual(Object.keys(data.spells[0]).sort(), [
    "content_source_id",
    "description",
    "id",
    "name",
    "rank",
    "traditions",
    "traits",
  ]);
  deepStrictEqual(data.creatures, [{
    id: f.ids.drake,
    name: "Fire Drake",
    level: 7,
    type: "creature",
    content_source_id: f.official,
  }]);
  deepStrictEqual(data.hazards, [{
    id: f.ids.trap,
    name: "Fire Trap",
    level: 2,
    type: "hazard",
    content_source_id: f.official,
  }]);
  deepStrictEqual(Object.keys(data.items[0]).sort(), [
    "content_source_id",
    "description",
    "group",
    "hands",
    "id",
    "level",
    "name",
    "traits",
  ]);
  equal(data.ability_blocks.length, 0);
  for (const bucket of ["classes", "ancestries", "archetypes", "backgrounds", "languages"]) {
    equal(data[bucket].length, 1, `${bucket} has its fire row`);
    deepStrictEqual(Object.keys(data[bucket][0]).sort(), [
      "content_source_id",
      "description",
      "id",
      "name",
    ]);
  }
  ok(names(data.traits).includes("Fire"));
  deepStrictEqual(names(data.versatile_heritages), ["Ifrit"]);
  deepStrictEqual(names(data.class_archetypes), ["Flame Oracle"]);
});

test("search-data: short or empty text returns all thirteen buckets empty", async () => {
  for (const body of [{}, { text: "" }, { text: "f" }, { text: "   f  " }, { text: "--" }]) {
    const data = successData(await search(body));
    deepStrictEqual(Object.keys(data).sort(), [...BUCKETS].sort());
    for (const key of BUCKETS) deepStrictEqual(data[key], [], `${JSON.stringify(body)} ${key}`);
  }
});

test("search-data: simple mode caps each bucket at 20 rows unless limit says otherwise", async () => {
  const data = await simple("fire", { limit: 1 });
  equal(data.spells.length, 1);
  equal(data.spells[0].name, "Fireball");
});

test("search-data: without content_sources only official published content is found", async () => {
  const f = await fixture();
  const own = names(successData(await search({ text: f.tag }, f.alice)).spells);
  deepStrictEqual(own, [`${f.tag} Beacon`]);
  const empty = names(successData(await search({ text: f.tag, content_sources: [] })).spells);
  deepStrictEqual(empty, [`${f.tag} Beacon`]);
});

test("search-data: another user's unpublished homebrew never appears, even when listed", async () => {
  const f = await fixture();
  const listed = [f.official, f.unpublished, f.homebrew];
  const bob = successData(await search({ text: f.tag, content_sources: listed }, f.bob));
  deepStrictEqual(names(bob.spells), [`${f.tag} Beacon`]);
  const bobAdvanced = successData(
    await search({ is_advanced: true, type: "spell", name: f.tag, content_sources: listed }, f.bob),
  );
  deepStrictEqual(names(bobAdvanced.spells), [`${f.tag} Beacon`]);
  const alice = successData(await search({ text: f.tag, content_sources: listed }, f.alice));
  deepStrictEqual(names(alice.spells).sort(), [`${f.tag} Beacon`, `${f.tag} Secret`]);
});

test("search-data: API keys search as their owner", async () => {
  const f = await fixture();
  const { apiKey } = await makeApiKey(f.alice);
  const res = await call("search-data", {
    text: f.tag,
    content_sources: [f.official, f.homebrew],
  }, { token: apiKey });
  deepStrictEqual(names(successData(res).spells).sort(), [`${f.tag} Beacon`, `${f.tag} Secret`]);
});

/** Advanced search in the fixture's source; returns the ids of the `type` bucket. */
async function advanced(type: string, filters: Record<string, unknown>): Promise<number[]> {
  const f = await fixture();
  const data = successData(
    await search({ is_advanced: true, type, content_sources: [f.official], ...filters }),
  );
  const bucket = BUCKETS.find((b) =>
    ({
      spell: "spells",
      item: "items",
      "ability-block": "ability_blocks",
      creature: "creatures",
      trait: "traits",
      class: "classes",
      language: "languages",
    })[type] === b
  );
  for (const key of BUCKETS) {
    if (key !== bucket) deepStrictEqual(data[key], [], `${key} stays empty`);
  }
  return (data[bucket ?? "spells"] as { id: number }[]).map((r) => r.id);
}

test("search-data: every advanced filter narrows its content type", async () => {
  const { ids } = await fixture();
  const cases: [string, Record<string, unknown>, number[]][] = [
    ["spell", { name: "fireball" }, [ids.fireball, ids.barrage]],
    ["spell", { description: "flame" }, [ids.fyreball, ids.lance]],
    ["spell", { cost: "ASH" }, [ids.lance]],
    ["spell", { trigger: "approaches" }, [ids.lance]],
    ["spell", { requirements: "wand" }, [ids.lance]],
    ["spell", { range: "500" }, [ids.fireball]],
    ["spell", { area: "burst" }, [ids.fireball, ids.barrage]],
    ["spell", { targets: "creature" }, [ids.fyreball]],
    ["spell", { duration: "minute" }, [ids.fyreball]],
    ["spell", { defense: "reflex" }, [ids.fireball]],
    ["spell", { traits: [ids.fireTrait] }, [ids.fireball, ids.barrage]],
    ["spell", { traditions: ["primal", "divine"] }, [ids.fyreball, ids.fireball]],
    ["spell", { rank_min: 2, rank_max: 3 }, [ids.lance, ids.fireball]],
    ["spell", { cast: "two-actions" }, [ids.fireball]],
    ["spell", { rarity: "UNCOMMON" }, [ids.barrage]],
    ["spell", { availability: "LIMITED" }, [ids.lance]],
    ["spell", { spell_type: "FOCUS" }, [ids.fyreball, ids.prison]],
    ["spell", { spell_type: "RITUAL" }, [ids.lance]],
    ["spell", { spell_type: "NORMAL", name: "f" }, [ids.fireball, ids.unfocused, ids.barrage]],
    ["item", { usage: "arm" }, [ids.buckler]],
    ["item", { craft_requirements: "essence" }, [ids.longsword]],
    ["item", { level_min: 3 }, [ids.longsword]],
    ["item", { bulk: "L" }, [ids.buckler]],
    ["item", { hands: "1" }, [ids.buckler, ids.longsword]],
    ["item", { size: "SMALL" }, [ids.buckler]],
    ["item", { group: "WEAPON" }, [ids.longsword]],
    ["item", { availability: "RESTRICTED", rarity: "RARE" }, [ids.buckler]],
    ["item", { traits: [ids.fireTrait] }, [ids.longsword]],
    ["ability-block", { frequency: "per round" }, [ids.powerAttack]],
    ["ability-block", { access: "guild" }, [ids.powerAttack]],
    ["ability-block", { special: "more than once" }, [ids.powerAttack]],
    ["ability-block", { trigger: "manipulate" }, [ids.reactiveStrike]],
    ["ability-block", { requirements: "melee" }, [ids.reactiveStrike]],
    ["ability-block", { cost: "reaction" }, [ids.reactiveStrike]],
    ["ability-block", { prerequisites: ["trained in Athletics"] }, [
      ids.powerAttack,
      ids.reactiveStrike,
    ]],
    ["ability-block", { prerequisites: ["trained in Athletics", "expert in Perception"] }, [
      ids.reactiveStrike,
    ]],
    ["ability-block", { actions: "REACTION" }, [ids.reactiveStrike]],
    ["ability-block", { ab_type: "feat" }, [ids.powerAttack]],
    ["ability-block", { traits: [ids.fighterTrait] }, [ids.powerAttack]],
    ["ability-block", { level_max: 5 }, [ids.powerAttack]],
    ["creature", { level_min: 7, level_max: 7 }, [ids.drake]],
    ["creature", { rarity: "UNCOMMON" }, [ids.drake]],
    ["creature", { name: "wyrm" }, [ids.wyrm]],
    ["class", { description: "flame" }, [ids.warden]],
    ["language", { name: "ign" }, [ids.ignan]],
    ["trait", { name: "fire" }, [ids.fireTrait]],
  ];
  for (const [type, filters, expected] of cases) {
    deepStrictEqual(await advanced(type, filters), expected, `${type} ${JSON.stringify(filters)}`);
  }
});

test("search-data: advanced text filters take words, phrases, wildcards and exclusions", async () => {
  const { ids } = await fixture();
  deepStrictEqual(await advanced("spell", { description: "FIRE point" }), [ids.fireball]);
  deepStrictEqual(await advanced("spell", { description: '"lance of" "holy flame"' }), [
    ids.fyreball,
    ids.lance,
  ]);
  deepStrictEqual(await advanced("spell", { name: "fire*" }), [ids.fireball, ids.barrage]);
  deepStrictEqual(await advanced("spell", { name: "*ball" }), [ids.fyreball, ids.fireball]);
  deepStrictEqual(await advanced("spell", { name: "f*ball" }), [ids.fyreball, ids.fireball]);
  deepStrictEqual(await advanced("spell", { name: "fireball -barrage" }), [ids.fireball]);
  deepStrictEqual(await advanced("spell", { cost: "-ash", rank_max: 2 }), [
    ids.fyreball,
    ids.taggedOfficial,
  ]);
});

test("search-data: advanced filters a type does not have are ignored", async () => {
  const { ids } = await fixture();
  deepStrictEqual(await advanced("trait", { name: "fire", rarity: "RARE", size: "HUGE" }), [
    ids.fireTrait,
  ]);
  deepStrictEqual(await advanced("creature", { name: "drake", description: "nothing" }), [
    ids.drake,
  ]);
  deepStrictEqual(await advanced("language", { name: "ignan", level_min: 99 }), [ids.ignan]);
});

test("search-data: advanced mode sorts spells by rank, items by level, others by name", async () => {
  const { ids } = await fixture();
  deepStrictEqual(await advanced("spell", { name: "f" }), [
    ids.fyreball,
    ids.fireball,
    ids.unfocused,
    ids.barrage,
  ]);
  deepStrictEqual(await advanced("item", {}), [ids.buckler, ids.longsword]);
  deepStrictEqual(await advanced("trait", {}), [
    ids.coldTrait,
    ids.fighterTrait,
    ids.fireTrait,
    ids.focusTrait,
  ]);
});

test("search-data: advanced rows are full records", async () => {
  const f = await fixture();
  const data = successData(
    await search({
      is_advanced: true,
      type: "spell",
      name: "Fireball",
      content_sources: [f.official],
    }),
  );
  const fireball = data.spells[0];
  equal(fireball.id, f.ids.fireball);
  equal(fireball.range, "500 feet");
  equal(fireball.cast, "two-actions");
  deepStrictEqual(fireball.traditions, ["arcane", "primal"]);
  match(fireball.created_at, /^\d{4}-\d\d-\d\dT/);
  equal("search_vector" in fireball, false);
});

test("search-data: advanced mode without a type, or with content-source, finds nothing", async () => {
  for (const type of [undefined, "content-source"]) {
    const data = successData(await search({ is_advanced: true, type, name: "fire" }));
    for (const key of BUCKETS) deepStrictEqual(data[key], []);
  }
});

test("search-data: LIKE wildcards and quotes in filters are literal text", async () => {
  const { ids } = await fixture();
  deepStrictEqual(await advanced("spell", { name: "%" }), []);
  deepStrictEqual(await advanced("spell", { name: "_" }), []);
  deepStrictEqual(await advanced("spell", { name: "\\" }), []);
  deepStrictEqual(await advanced("spell", { description: "100%" }), [ids.prison]);
  deepStrictEqual(await advanced("spell", { description: "time_" }), [ids.prison]);
  deepStrictEqual(await advanced("spell", { name: "'; drop table public.spell; --" }), []);
  const data = await simple("'); drop table public.spell; -- \\ % _ :* & | !");
  for (const key of BUCKETS) ok(Array.isArray(data[key]));
  deepStrictEqual(await advanced("spell", { name: "Fireball Barrage" }), [ids.barrage]);
});

test("search-data: bad input is a fail naming the field", async () => {
  match(failMessage(await search({ text: "x".repeat(10_000) })), /^Invalid value for text/);
  match(
    failMessage(await search({ is_advanced: true, type: "spell", description: "y".repeat(201) })),
    /^Invalid value for description/,
  );
  match(failMessage(await search({ is_advanced: true, rarity: "LEGENDARY" })), /rarity/);
  match(failMessage(await search({ is_advanced: true, type: "monster" })), /type/);
  match(failMessage(await search({ is_advanced: true, spell_type: "CANTRIP" })), /spell_type/);
  match(
    failMessage(await search({ is_advanced: true, type: "item", level_min: 5, level_max: 2 })),
    /^Invalid value for level_min: level_min must not be greater than level_max/,
  );
  match(failMessage(await search({ rank_min: 4, rank_max: 1 })), /rank_min/);
  match(failMessage(await search({ traits: ["fire"] })), /traits/);
  match(failMessage(await search({ limit: 1000, text: "fire" })), /limit/);
  match(failMessage(await search({ colour: "red" })), /Unknown field: colour/);
});

test("search-data: null filters count as absent", async () => {
  const { ids } = await fixture();
  deepStrictEqual(
    await advanced("spell", { name: "fireball", rarity: null, traits: null, level_min: null }),
    [ids.fireball, ids.barrage],
  );
});

test("search-data: signed out, without credentials, searches as the anon key does", async () => {
  successData(await callSignedOut("search-data", { text: "fire" }));
});

/** Runs a query in a transaction as the given user, as the request pipeline does. */
async function asUser(
  user: TestUser,
  query: (tx: postgres.TransactionSql) => Promise<postgres.Row[]>,
): Promise<postgres.Row[]> {
  const claims = JSON.stringify({ sub: user.user_id, role: "authenticated" });
  return await adminSql.begin(async (tx) => {
    await tx`select set_config('role', ${REQUEST_ROLES.authenticated}, true),
      set_config('request.jwt.claims', ${claims}, true)`;
    return await query(tx);
  });
}

test("search helpers return only ids of rows the caller may read", async () => {
  const f = await fixture();
  const pattern = `%${f.tag}%`;
  const matching = await asUser(
    f.bob,
    (tx) =>
      tx`select m.id from private.search_matching_ids('spell', 'name', ${[
        pattern,
      ]}::text[], null) m(id)`,
  );
  deepStrictEqual(matching.map((r) => Number(r.id)), [f.ids.taggedOfficial]);
  const ranked = await asUser(
    f.bob,
    (tx) =>
      tx`select bucket, id from private.search_ranked_ids(${f.tag}, ${`${f.tag}%`}, null, null,
      ${[f.official, f.unpublished, f.homebrew]}::bigint[], 20)`,
  );
  deepStrictEqual(ranked.map((r) => [r.bucket, Number(r.id)]), [["spells", f.ids.taggedOfficial]]);
  const own = await asUser(
    f.alice,
    (tx) =>
      tx`select m.id from private.search_matching_ids('spell', 'name', ${[
        pattern,
      ]}::text[], null) m(id)
       order by id`,
  );
  deepStrictEqual(own.map((r) => Number(r.id)), [f.ids.taggedOfficial, f.ids.taggedHomebrew]);
});

test("search_matching_ids() looks only in the sources searched, the official ones by default", async () => {
  const f = await fixture();
  const matching = (sources: number[] | null) =>
    asUser(
      f.alice,
      (tx) =>
        tx`select m.id from private.search_matching_ids('spell', 'name', ${[`%${f.tag}%`]}::text[],
          null, ${sources}::bigint[]) m(id) order by id`,
    ).then((rows) => rows.map((r) => Number(r.id)));
  deepStrictEqual(await matching(null), [f.ids.taggedOfficial]);
  deepStrictEqual(await matching([f.homebrew]), [f.ids.taggedHomebrew]);
  // Another user's unpublished source stays unread, named or not.
  deepStrictEqual(
    await asUser(
      f.bob,
      (tx) =>
        tx`select m.id from private.search_matching_ids('spell', 'name', ${[`%${f.tag}%`]}::text[],
          null, ${[f.homebrew, f.unpublished]}::bigint[]) m(id)`,
    ).then((rows) => rows.length),
    0,
  );
});

test("search_matching_ids() refuses columns that are not searchable text", async () => {
  const f = await fixture();
  await rejects(
    asUser(
      f.bob,
      (tx) =>
        tx`select private.search_matching_ids('content_source', 'keys', ${["%"]}::text[], null)`,
    ),
    /is not searchable/,
  );
});
