import { deepStrictEqual, equal, notEqual, ok } from "node:assert/strict";
import { call, failMessage, freshToken, makeUser, successData, test } from "./_harness.ts";
import { contentTypes } from "@shared/content_types.ts";

// Every content type through its create-<type> and find-<type>: insert, partial update by id,
// explicit null, find by id / name / content_sources / traits, and the one-or-many rule.

interface TypeCase {
  /** The hyphenated type as in the function names. */
  slug: string;
  /** How the fail messages name it. */
  label: string;
  /** Fields of a new record beside name and content_source_id. */
  sample: Record<string, unknown>;
  /** A real edit: these keys change to these values. */
  edit: Record<string, unknown>;
  /** Server-filled defaults a new record shows. */
  defaults: Record<string, unknown>;
  /** A nullable column to set and then clear with an explicit null. */
  nullable?: [string, unknown];
  /** Whether find-<type> takes the `traits` filter. */
  traits?: boolean;
}

const CASES: TypeCase[] = [
  {
    slug: "trait",
    label: "Trait",
    sample: { description: "A test trait.", meta_data: { important: true } },
    edit: { description: "A changed trait." },
    defaults: {},
  },
  {
    slug: "item",
    label: "Item",
    sample: { level: 2, price: { gp: 3 }, bulk: "L", operations: [{ type: "noop" }] },
    edit: { level: 3, group: "WEAPON" },
    defaults: { rarity: "COMMON", availability: "STANDARD", group: "GENERAL", size: "MEDIUM" },
    nullable: ["hands", "1"],
  },
  {
    slug: "spell",
    label: "Spell",
    sample: { rank: 2, traditions: ["arcane"], cast: "two actions" },
    edit: { rank: 3, duration: "1 minute" },
    defaults: { rarity: "COMMON", availability: "STANDARD" },
    nullable: ["range", "30 feet"],
    traits: true,
  },
  {
    slug: "class",
    label: "Class",
    sample: { skill_training_base: 3, operations: [] },
    edit: { skill_training_base: 4 },
    defaults: { rarity: "COMMON" },
    nullable: ["artwork_url", "https://example.test/a.png"],
  },
  {
    slug: "class-archetype",
    label: "Class archetype",
    sample: {
      class_id: 1,
      feature_adjustments: [{ fa_id: "x1", type: "ADD", prev_id: null, data: {} }],
    },
    edit: { override_class_operations: true },
    defaults: { rarity: "COMMON", deprecated: false, override_class_operations: false },
    nullable: ["override_skill_training_base", 2],
  },
  {
    slug: "ability-block",
    label: "Ability block",
    sample: { type: "feat", level: 1, actions: "ONE-ACTION", prerequisites: ["expert in Lore"] },
    edit: { level: 4, actions: null },
    defaults: { rarity: "COMMON", availability: "STANDARD" },
    nullable: ["frequency", "once per day"],
    traits: true,
  },
  {
    slug: "versatile-heritage",
    label: "Versatile heritage",
    sample: { trait_id: 7 },
    edit: { description: "Changed." },
    defaults: { rarity: "COMMON" },
    // Not trait_id: an edit with trait_id null keeps the linked trait (docs/content.md).
    nullable: ["heritage_id", 3],
  },
  {
    slug: "language",
    label: "Language",
    sample: { speakers: "testers", script: "tally marks" },
    edit: { rarity: "RARE" },
    defaults: { rarity: "COMMON", availability: "STANDARD" },
    nullable: ["speakers", "everyone"],
  },
  {
    slug: "ancestry",
    label: "Ancestry",
    sample: { trait_id: 4, operations: [] },
    edit: { description: "Changed." },
    defaults: { rarity: "COMMON" },
    nullable: ["version", "1.1"],
  },
  {
    slug: "archetype",
    label: "Archetype",
    sample: { dedication_feat_id: 2 },
    edit: { rarity: "UNCOMMON" },
    defaults: { rarity: "COMMON" },
    nullable: ["dedication_feat_id", 2],
  },
  {
    slug: "background",
    label: "Background",
    sample: { description: "Raised by tests." },
    edit: { description: "Raised by more tests." },
    defaults: { rarity: "COMMON" },
    nullable: ["version", "2"],
  },
  {
    slug: "creature",
    label: "Creature",
    sample: { level: 2, details: { description: "Bites.", adjustment: "ELITE" } },
    edit: { level: 5, hp_current: 12 },
    defaults: { rarity: "COMMON", type: "creature", deprecated: false, experience: 0 },
    nullable: ["notes", { pinned: true }],
  },
  {
    slug: "hazard",
    label: "Hazard",
    sample: { level: 1, details: { description: "Slippery." } },
    edit: { level: 2 },
    defaults: { rarity: "COMMON", type: "hazard" },
    nullable: ["version", "1"],
  },
];

async function homebrewSource(token: string): Promise<number> {
  const source = successData(
    await call("create-content-source", { name: `Tests ${crypto.randomUUID()}` }, { token }),
  );
  return source.id;
}

for (const c of CASES) {
  test(`create-${c.slug} and find-${c.slug}: insert, partial update, null, every filter`, async () => {
    const owner = await makeUser({ tier: 2 });
    const token = await freshToken(owner);
    const opt = { token };
    const source = await homebrewSource(token);
    const name = `  Tester’s ${c.slug} ${crypto.randomUUID().slice(0, 8)}  `;
    const stored = name.trim().replaceAll("’", "'");

    // Insert: trimmed name, plain apostrophe, server-filled defaults and timestamps.
    const created = successData(
      await call(`create-${c.slug}`, { name, content_source_id: source, ...c.sample }, opt),
    );
    equal(created.name, stored);
    equal(created.content_source_id, source);
    ok(Number.isInteger(created.id));
    ok(created.created_at && created.updated_at);
    for (const [key, value] of Object.entries({ ...c.defaults, ...c.sample })) {
      deepStrictEqual(created[key], value, `${c.slug}.${key} as stored`);
    }

    // Update by id: only the keys sent change; the rest stays as stored.
    const updated = successData(await call(`create-${c.slug}`, { id: created.id, ...c.edit }, opt));
    equal(updated.id, created.id);
    equal(updated.name, stored);
    for (const [key, value] of Object.entries(c.edit)) deepStrictEqual(updated[key], value);
    for (const key of Object.keys(c.sample)) {
      if (!(key in c.edit)) deepStrictEqual(updated[key], created[key], `${c.slug}.${key} kept`);
    }

    // A nullable column can be set and then cleared with an explicit null.
    if (c.nullable) {
      const [key, value] = c.nullable;
      const set = successData(
        await call(`create-${c.slug}`, { id: created.id, [key]: value }, opt),
      );
      deepStrictEqual(set[key], value);
      const cleared = successData(
        await call(`create-${c.slug}`, { id: created.id, [key]: null }, opt),
      );
      equal(cleared[key], null);
    }

    // Updating a missing row fails clearly.
    equal(
      failMessage(await call(`create-${c.slug}`, { id: 2 ** 40, name: "x" }, opt)),
      `${c.label} not found`,
    );

    // Find: a single id gives the object, an id list gives a list, a miss gives null.
    const byId = successData(await call(`find-${c.slug}`, { id: created.id }, opt));
    equal(byId.id, created.id);
    deepStrictEqual(
      successData(await call(`find-${c.slug}`, { id: [created.id] }, opt)).map((
        r: { id: number },
      ) => r.id),
      [created.id],
    );
    equal(successData(await call(`find-${c.slug}`, { id: 2 ** 40 }, opt)), null);
    deepStrictEqual(successData(await call(`find-${c.slug}`, { id: [2 ** 40] }, opt)), []);

    // Name, in any case: the whole name where interface.md lists `name` (find-spell,
    // find-language), else any part of it; the own homebrew source must be listed to be searched.
    const byName = successData(
      await call(`find-${c.slug}`, { name: stored.toUpperCase(), content_sources: [source] }, opt),
    );
    deepStrictEqual(byName.map((r: { id: number }) => r.id), [created.id]);
    deepStrictEqual(successData(await call(`find-${c.slug}`, { name: stored }, opt)), []);
    deepStrictEqual(
      successData(
        await call(`find-${c.slug}`, { name: stored.slice(1, -2), content_sources: [source] }, opt),
      ).map((r: { id: number }) => r.id),
      contentTypes[c.slug as keyof typeof contentTypes].nameMatch === "exact" ? [] : [created.id],
    );

    // content_sources: listed sources only; omitted: official published sources only.
    const listed = successData(await call(`find-${c.slug}`, { content_sources: [source] }, opt));
    deepStrictEqual(listed.map((r: { id: number }) => r.id), [created.id]);
    const official = successData(await call(`find-${c.slug}`, {}, opt));
    ok(Array.isArray(official) && official.length > 0, "the seed has official rows");
    // The seed's official published sources: the Pathfinder core (1) and the shared core (3).
    ok(official.every((r: { content_source_id: number }) => [1, 3].includes(r.content_source_id)));

    // Traits: rows carrying every listed trait.
    if (c.traits) {
      successData(await call(`create-${c.slug}`, { id: created.id, traits: [1, 3] }, opt));
      const find = (traits: number[]) =>
        call(`find-${c.slug}`, { traits, content_sources: [source] }, opt).then(successData);
      deepStrictEqual((await find([1])).map((r: { id: number }) => r.id), [created.id]);
      deepStrictEqual((await find([1, 3])).map((r: { id: number }) => r.id), [created.id]);
      deepStrictEqual(await find([1, 2]), []);
    } else {
      ok(failMessage(await call(`find-${c.slug}`, { traits: [1] }, opt)).includes("traits"));
    }
  });
}

test("create-content-source and find-content-source: insert, update, null, filters", async () => {
  const owner = await makeUser({ tier: 2 });
  const token = await freshToken(owner);
  const opt = { token };
  const name = ` Tester’s book ${crypto.randomUUID().slice(0, 8)} `;
  const stored = name.trim().replaceAll("’", "'");
  const created = successData(
    await call("create-content-source", { name, url: "https://example.test/b", group: "x" }, opt),
  );
  equal(created.name, stored);
  equal(created.user_id, owner.user_id);
  equal(created.is_published, false);
  equal(created.require_key, false);
  deepStrictEqual(created.required_content_sources, []);

  const updated = successData(
    await call("create-content-source", { id: created.id, is_published: true, url: null }, opt),
  );
  equal(updated.is_published, true);
  equal(updated.url, null);
  equal(updated.group, "x");

  deepStrictEqual(successData(await call("find-content-source", { id: created.id }, opt)), updated);
  equal(successData(await call("find-content-source", { id: 2 ** 40 }, opt)), null);
  const byName = successData(
    await call(
      "find-content-source",
      { name: stored.toLowerCase(), content_sources: [created.id] },
      opt,
    ),
  );
  deepStrictEqual(byName.map((r: { id: number }) => r.id), [created.id]);
  const mine = successData(await call("find-content-source", { user_id: owner.user_id }, opt));
  deepStrictEqual(mine.map((r: { id: number }) => r.id), [created.id]);
  const official = successData(await call("find-content-source", {}, opt));
  ok(official.every((r: { user_id: string | null }) => r.user_id === null));
  ok(official.some((r: { id: number }) => r.id === 1));
  equal(
    failMessage(await call("create-content-source", { id: 2 ** 40, name: "x" }, opt)),
    "Content source not found",
  );
});

test("create-spell treats id -1 as a new spell", async () => {
  const owner = await makeUser({ tier: 2 });
  const token = await freshToken(owner);
  const source = await homebrewSource(token);
  const a = successData(
    await call("create-spell", { id: -1, name: "Fresh", rank: 1, content_source_id: source }, {
      token,
    }),
  );
  const b = successData(
    await call("create-spell", { id: -1, name: "Fresh", rank: 1, content_source_id: source }, {
      token,
    }),
  );
  notEqual(a.id, b.id);
  ok(a.id > 0 && b.id > 0);
});

test("find endpoints list in a stable order: by name, then id", async () => {
  const owner = await makeUser({ tier: 2 });
  const token = await freshToken(owner);
  const source = await homebrewSource(token);
  const ids: number[] = [];
  for (const name of ["Bramble", "apple", "Bramble", "Cobble"]) {
    const row = successData(
      await call("create-background", { name, content_source_id: source }, { token }),
    );
    ids.push(row.id);
  }
  const found = successData(
    await call("find-background", { content_sources: [source] }, { token }),
  );
  const names = found.map((r: { name: string }) => r.name);
  // Collation decides where "apple" sorts; the two Brambles are always id-ordered together.
  const brambles = found.filter((r: { name: string }) => r.name === "Bramble").map((
    r: { id: number },
  ) => r.id);
  deepStrictEqual(brambles, [ids[0], ids[2]]);
  equal(found.length, 4);
  ok(names.indexOf("Cobble") > names.indexOf("Bramble"));
});
