import { deepStrictEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { ContentSourceGroup } from "@shared/enums.ts";
import { call, failMessage, makeUser, successData, test, type TestUser } from "./_harness.ts";

// The reference web client's own content bodies (docs/web-client.md): new records with `id: -1`,
// blank-form nulls, server-owned keys sent back, string ids, its extra fields and filters, linked
// traits, and community corrections carrying whole records.

async function homebrewSource(user: TestUser, published = false): Promise<number> {
  // The client's "Create Bundle" body, as HomebrewPage sends it.
  const created = successData(
    await call("create-content-source", {
      id: -1,
      created_at: "",
      user_id: "",
      name: "New Bundle",
      foundry_id: null,
      url: "",
      description: "",
      operations: [],
      contact_info: "",
      group: "",
      require_key: false,
      keys: null,
      is_published: published,
      artwork_url: "",
      deprecated: false,
      required_content_sources: [],
      meta_data: {},
    }, { token: user.access_token }),
  );
  equal(created.user_id, user.user_id);
  equal(created.foundry_id, null);
  equal(created.deprecated, false);
  return created.id;
}

/** The new-record bodies of the client's Create*Modal forms (content_source_id filled in). */
function newRecordBodies(sourceId: number): Record<string, Record<string, unknown>> {
  return {
    background: {
      id: -1,
      created_at: "",
      name: "Bg",
      rarity: "COMMON",
      description: "x",
      operations: [],
      artwork_url: "https://example.test/bg.png",
      deprecated: false,
      content_source_id: sourceId,
      version: "1.0",
    },
    ancestry: {
      id: -1,
      created_at: "",
      name: "Anc",
      rarity: "COMMON",
      description: "x",
      operations: [],
      trait_id: -1,
      artwork_url: "",
      deprecated: null,
      content_source_id: sourceId,
      version: "1.0",
    },
    class: {
      id: -1,
      created_at: "",
      name: "Cls",
      rarity: "COMMON",
      description: "x",
      skill_training_base: 0,
      operations: [],
      trait_id: -1,
      artwork_url: "",
      deprecated: false,
      content_source_id: sourceId,
      version: "1.0",
    },
    archetype: {
      id: -1,
      created_at: "",
      name: "Arch",
      rarity: "COMMON",
      description: "x",
      trait_id: -1,
      dedication_feat_id: null,
      artwork_url: "",
      deprecated: null,
      content_source_id: sourceId,
      version: "1.0",
    },
    "versatile-heritage": {
      id: -1,
      created_at: "",
      name: "VH",
      rarity: "COMMON",
      description: "x",
      trait_id: -1,
      heritage_id: -1,
      artwork_url: "",
      content_source_id: sourceId,
      deprecated: null,
      version: "1.0",
    },
    language: {
      id: -1,
      created_at: "",
      name: "Lang",
      speakers: "",
      script: "",
      description: "x",
      rarity: "COMMON",
      availability: null,
      deprecated: false,
      content_source_id: sourceId,
    },
    trait: {
      id: -1,
      created_at: "",
      name: "Tr",
      description: "x",
      meta_data: { important: false },
      content_source_id: sourceId,
    },
    spell: {
      id: -1,
      created_at: "",
      name: "Sp",
      rank: 0,
      traditions: [],
      rarity: "COMMON",
      availability: null,
      cast: null,
      defense: "",
      description: "x",
      heightened: { text: [], data: {} },
      meta_data: {},
      traits: [],
      content_source_id: sourceId,
      version: "1.0",
    },
    item: {
      id: -1,
      created_at: "",
      name: "It",
      price: {},
      bulk: null,
      level: 0,
      rarity: "COMMON",
      traits: [],
      description: "x",
      group: "GENERAL",
      hands: null,
      size: "MEDIUM",
      meta_data: {},
      operations: [],
      content_source_id: sourceId,
      version: "1.0",
    },
    "ability-block": {
      id: -1,
      created_at: "",
      operations: [],
      name: "Feat",
      actions: null,
      level: null,
      rarity: "COMMON",
      prerequisites: [],
      description: "x",
      type: "feat",
      meta_data: {},
      traits: [],
      content_source_id: sourceId,
      version: "1.0",
    },
    creature: {
      id: -1,
      created_at: "",
      name: "Cr",
      level: -1,
      rarity: "COMMON",
      inventory: null,
      notes: null,
      details: { description: "" },
      roll_history: null,
      operations: [],
      operation_data: null,
      abilities_base: [],
      abilities_added: [],
      spells: null,
      meta_data: null,
      deprecated: false,
      content_source_id: sourceId,
      version: "1.0",
    },
    "class-archetype": {
      id: -1,
      created_at: "",
      name: "CA",
      rarity: "COMMON",
      description: "x",
      class_id: 1,
      archetype_id: null,
      operations: [],
      feature_adjustments: [],
      override_class_operations: false,
      override_skill_training_base: null,
      artwork_url: "",
      content_source_id: sourceId,
      deprecated: false,
      version: "1.0",
    },
  };
}

const LINKED: Record<string, { flag: string; traitName: (name: string) => string }> = {
  class: { flag: "class_trait", traitName: (n) => n },
  ancestry: { flag: "ancestry_trait", traitName: (n) => n },
  archetype: { flag: "archetype_trait", traitName: (n) => `${n} Archetype` },
  "versatile-heritage": { flag: "versatile_heritage_trait", traitName: (n) => n },
};

test("web client: create-<type> takes the web client's new-record form of every content type, and copies", async () => {
  const user = await makeUser({ tier: 2 });
  const token = user.access_token;
  const sourceId = await homebrewSource(user);
  for (const [type, body] of Object.entries(newRecordBodies(sourceId))) {
    const saved = successData(await call(`create-${type}`, body, { token }));
    ok(saved.id > 0, type);
    equal(saved.content_source_id, sourceId, type);
    equal(saved.name, body.name, type);
    equal(saved.deprecated, false, `${type}: deprecated null or false is stored as false`);
    if ("availability" in body) equal(saved.availability, "STANDARD", `${type}: null availability`);
    if (type === "creature") deepStrictEqual(saved.meta_data, {}, "null meta_data is the default");
    if (type === "background") equal(saved.artwork_url, "https://example.test/bg.png");
    if (type === "versatile-heritage") equal(saved.heritage_id, null, "heritage_id -1 is none");

    const linked = LINKED[type];
    if (linked) {
      ok(saved.trait_id > 0, `${type} gets its own trait`);
      const trait = successData(await call("find-trait", { id: saved.trait_id }, { token }));
      equal(trait.content_source_id, sourceId);
      equal(trait.name, linked.traitName(String(body.name)));
      equal(trait.meta_data[linked.flag], true);
    }

    // The edit modal sends the fetched record back whole; a copy sends it with id -1.
    const fetched = successData(await call(`find-${type}`, { id: String(saved.id) }, { token }));
    equal(fetched.id, saved.id, `${type}: a string id finds the row`);
    const edited = successData(
      await call(`create-${type}`, { ...fetched, name: `${fetched.name} edited` }, { token }),
    );
    equal(edited.id, saved.id);
    equal(edited.name, `${fetched.name} edited`);
    const copy = successData(
      await call(`create-${type}`, { ...fetched, id: -1, name: `(Copy) ${fetched.name}` }, {
        token,
      }),
    );
    notEqual(copy.id, saved.id, `${type}: a copy is a new row`);
    equal(copy.name, `(Copy) ${fetched.name}`);
  }
});

test("web client: create-<type> still refuses keys nobody sends, and other users' sources", async () => {
  const owner = await makeUser({ tier: 2 });
  const stranger = await makeUser({ tier: 2 });
  const sourceId = await homebrewSource(owner);
  match(
    failMessage(
      await call("create-trait", { name: "T", content_source_id: sourceId, bogus: 1 }, {
        token: owner.access_token,
      }),
    ),
    /^Unknown field: bogus\. Accepted: /,
  );
  const body = newRecordBodies(sourceId).class;
  equal(
    failMessage(await call("create-class", body, { token: stranger.access_token })),
    "Content source not found",
  );
  const traits = successData(
    await call("find-trait", { content_sources: [sourceId] }, { token: owner.access_token }),
  );
  deepStrictEqual(traits, [], "a refused class leaves no trait behind");
});

test("web client: null leaves a required field as it was; server-owned keys sent back are ignored", async () => {
  const user = await makeUser({ tier: 2 });
  const token = user.access_token;
  const sourceId = await homebrewSource(user);
  const language = successData(
    await call("create-language", {
      name: "Aklo",
      availability: "LIMITED",
      meta_data: { source: { page: "3" } },
      content_source_id: sourceId,
    }, { token }),
  );
  const updated = successData(
    await call("create-language", {
      id: language.id,
      availability: null,
      meta_data: null,
      created_at: "",
      updated_at: "",
      user_id: "",
      description: "changed",
    }, { token }),
  );
  equal(updated.availability, "LIMITED");
  deepStrictEqual(updated.meta_data, { source: { page: "3" } });
  equal(updated.description, "changed");
  const block = successData(
    await call("create-ability-block", {
      name: "Stride",
      type: "action",
      actions: "ONE-ACTION",
      level: 1,
      content_source_id: sourceId,
    }, { token }),
  );
  const cleared = successData(
    await call("create-ability-block", { id: block.id, actions: null, level: null }, { token }),
  );
  equal(cleared.actions, null, "a nullable column is still cleared by null");
  equal(cleared.level, null);
});

test("web client: a linked trait follows its record's renames, and an edit with trait_id -1 keeps it", async () => {
  const user = await makeUser({ tier: 2 });
  const token = user.access_token;
  const sourceId = await homebrewSource(user);
  const archetype = successData(
    await call("create-archetype", newRecordBodies(sourceId).archetype, { token }),
  );
  const renamed = successData(
    await call("create-archetype", { id: archetype.id, name: "Surveyor", trait_id: -1 }, {
      token,
    }),
  );
  equal(renamed.trait_id, archetype.trait_id);
  const trait = successData(await call("find-trait", { id: archetype.trait_id }, { token }));
  equal(trait.name, "Surveyor Archetype");
  equal(trait.description, "This indicates content from the surveyor archetype.");

  // A class linked to a trait of another name (chosen by hand) does not rename that trait.
  const chosen = successData(
    await call("create-trait", { name: "Chosen", content_source_id: sourceId }, { token }),
  );
  const cls = successData(
    await call("create-class", { name: "Cls", trait_id: chosen.id, content_source_id: sourceId }, {
      token,
    }),
  );
  equal(cls.trait_id, chosen.id);
  successData(await call("create-class", { id: cls.id, name: "Other" }, { token }));
  equal(successData(await call("find-trait", { id: chosen.id }, { token })).name, "Chosen");
});

test("web client: find-content-source takes the web client's homebrew, published and foundry_id filters", async () => {
  const owner = await makeUser({ tier: 2 });
  const reader = await makeUser({ tier: 2 });
  const published = await homebrewSource(owner, true);
  const draft = await homebrewSource(reader);
  const token = reader.access_token;
  const ids = (data: { id: number }[]) => data.map((s) => s.id);

  const official = successData(
    await call("find-content-source", { homebrew: false, published: true }, { token }),
  );
  ok(ids(official).includes(1));
  ok(official.every((s: { user_id: string | null }) => s.user_id === null));
  // The seed's book sits on one of the client's shelves.
  const seeded = official.find((s: { id: number }) => s.id === 1);
  ok(ContentSourceGroup.options.includes(seeded.group), seeded.group);

  const everyPublic = ids(
    successData(await call("find-content-source", { homebrew: true, published: true }, { token })),
  );
  ok(everyPublic.includes(1) && everyPublic.includes(published) && !everyPublic.includes(draft));

  const accessible = ids(
    successData(await call("find-content-source", { homebrew: true }, { token })),
  );
  ok(accessible.includes(draft) && accessible.includes(published));

  const listed = successData(await call("find-content-source", { id: [1] }, { token }));
  equal(listed[0].deprecated, false);
  ok("foundry_id" in listed[0] && "external_id" in listed[0]);

  // The admin upload's lookup by the reference's name of external_id answers one source.
  successData(
    await call("create-content-source", { id: draft, foundry_id: "Test Foundry Book" }, {
      token,
    }),
  );
  const byFoundry = successData(
    await call("find-content-source", { foundry_id: "Test Foundry Book", homebrew: true }, {
      token,
    }),
  );
  equal(byFoundry.id, draft);
  equal(byFoundry.external_id, "Test Foundry Book");
  equal(byFoundry.foundry_id, "Test Foundry Book");
  equal(
    successData(await call("find-content-source", { foundry_id: "Test Foundry Book" }, { token })),
    null,
    "without homebrew only official sources are searched, as the reference does",
  );

  // The source editor's save: the whole source back, deprecated null.
  const saved = successData(
    await call("create-content-source", {
      id: draft,
      created_at: "...",
      user_id: reader.user_id,
      name: "Renamed",
      url: "",
      description: "d",
      operations: [],
      contact_info: "",
      group: "",
      require_key: false,
      keys: null,
      is_published: false,
      artwork_url: "",
      required_content_sources: [],
      meta_data: {},
      deprecated: null,
    }, { token }),
  );
  equal(saved.name, "Renamed");
  equal(saved.deprecated, false);
  match(
    failMessage(await call("find-content-source", { homebrew: true, bogus: 1 }, { token })),
    /^Unknown field: bogus\. Accepted: /,
  );
});

test("web client: find filters the web client sends: dedication_feat_id and the admin tools' level, group, rarity", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const archetypes = successData(
    await call("find-archetype", { dedication_feat_id: 2, content_sources: [1] }, { token }),
  );
  deepStrictEqual(archetypes.map((a: { id: number }) => a.id), [1]);
  const items = successData(await call("find-item", { content_sources: [1] }, { token }));
  const item = items[0];
  const same = successData(
    await call("find-item", {
      name: item.name,
      level: item.level,
      group: item.group,
      rarity: item.rarity,
      content_sources: [1],
    }, { token }),
  );
  deepStrictEqual(same.map((i: { id: number }) => i.id), [item.id]);
  const none = successData(
    await call("find-item", { name: item.name, level: item.level + 50, content_sources: [1] }, {
      token,
    }),
  );
  deepStrictEqual(none, []);
  // A type without the column ignores the filter, as the reference ignores it.
  ok(
    successData(await call("find-spell", { level: 1, content_sources: [1] }, { token })).length > 0,
  );
});

test("web client: search-data accepts meets_prerequisites (ignored) and the admin tools' level", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const body = {
    type: "ability-block",
    ab_type: "feat",
    level_min: 1,
    level_max: 4,
    traits: [],
    meets_prerequisites: "Fully",
    is_advanced: true,
    content_sources: [1],
  };
  successData(await call("search-data", body, { token }));
  successData(
    await call("search-data", {
      is_advanced: true,
      type: "item",
      name: "a",
      level: 1,
      content_sources: [1],
    }, { token }),
  );
});

test("web client: create-content-update takes whole records: UPDATE with server keys, CREATE with id -1", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const spell = successData(await call("find-spell", { id: 1 }, { token }));
  const update = successData(
    await call("create-content-update", {
      type: "spell",
      ref_id: 1,
      action: "UPDATE",
      data: { ...spell, description: "fixed typo" },
      content_source_id: 1,
    }, { token }),
  );
  equal(update.data.description, "fixed typo");
  ok(!("id" in update.data) && !("created_at" in update.data));
  const create = successData(
    await call("create-content-update", {
      type: "class",
      action: "CREATE",
      data: newRecordBodies(1).class,
      content_source_id: 1,
    }, { token }),
  );
  equal(create.action, "CREATE");
  equal(create.data.name, "Cls");
  ok(!("id" in create.data));
});

test("web client: create-character and create-encounter take the client's nulls, blank keys and fractions", async () => {
  const user = await makeUser({ tier: 2 });
  const token = user.access_token;
  const character = successData(
    await call("create-character", {
      created_at: "",
      user_id: "",
      name: "Imported",
      level: 3,
      notes: null,
      roll_history: null,
      companions: null,
      custom_operations: null,
      details: { info: {} },
      options: {},
      variants: {},
      content_sources: { enabled: [1] },
      operation_data: { selections: {} },
    }, { token }),
  );
  equal(character.name, "Imported");
  deepStrictEqual(character.custom_operations, []);
  const found = successData(await call("find-character", { id: String(character.id) }, { token }));
  equal(found.id, character.id);

  const encounter = successData(
    await call("create-encounter", {
      id: -1,
      created_at: "",
      user_id: "",
      name: "Combat",
      icon: "combat",
      color: "#339af0",
      campaign_id: null,
      combatants: { list: [] },
      meta_data: { description: "", party_level: 2.5, party_size: 2 },
    }, { token }),
  );
  equal(encounter.meta_data.party_level, 2.5);
});
