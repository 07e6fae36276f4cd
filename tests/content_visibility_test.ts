import { deepStrictEqual, equal } from "node:assert/strict";
import {
  call,
  type CallResult,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";

// Who may read and write what, cell by cell: three callers (alice owns homebrew, bob is another
// user, an admin) through a JWT and through an API key, against five kinds of source, through find
// and create. Every cell is asserted against the tables below.

type Who = "alice" | "bob" | "admin";
type Kind =
  | "official"
  | "official unpublished"
  | "alice's published"
  | "alice's unpublished"
  | "alice's key-locked";

const KINDS: Kind[] = [
  "official",
  "official unpublished",
  "alice's published",
  "alice's unpublished",
  "alice's key-locked",
];

const CAN_READ: Record<Kind, Record<Who, boolean>> = {
  "official": { alice: true, bob: true, admin: true },
  "official unpublished": { alice: false, bob: false, admin: true },
  "alice's published": { alice: true, bob: true, admin: true },
  "alice's unpublished": { alice: true, bob: false, admin: false },
  "alice's key-locked": { alice: true, bob: false, admin: false },
};

const CAN_WRITE: Record<Kind, Record<Who, boolean>> = {
  "official": { alice: false, bob: false, admin: true },
  "official unpublished": { alice: false, bob: false, admin: true },
  "alice's published": { alice: true, bob: false, admin: false },
  "alice's unpublished": { alice: true, bob: false, admin: false },
  "alice's key-locked": { alice: true, bob: false, admin: false },
};

const ACCESS_KEY = "lantern-door-7";

interface Fixture {
  users: Record<Who, TestUser>;
  tokens: Record<Who, { jwt: string; api_key: string }>;
  sources: Record<Kind, number>;
  spells: Record<Kind, number>;
}

async function fixture(): Promise<Fixture> {
  const users = {
    alice: await makeUser({ tier: 2 }),
    bob: await makeUser({ tier: 2 }),
    admin: await makeUser({ admin: true }),
  };
  const tokens = {} as Fixture["tokens"];
  for (const who of ["alice", "bob", "admin"] as const) {
    tokens[who] = { jwt: users[who].access_token, api_key: (await makeApiKey(users[who])).apiKey };
  }
  const alice = { token: tokens.alice.jwt };
  const source = async (body: Record<string, unknown>) =>
    successData(await call("create-content-source", { name: `Alice ${body.name}`, ...body }, alice))
      .id as number;
  const sources: Record<Kind, number> = {
    "official": 1,
    "official unpublished": 2,
    "alice's published": await source({ name: "pub", is_published: true }),
    "alice's unpublished": await source({ name: "unpub", is_published: false }),
    "alice's key-locked": await source({
      name: "locked",
      is_published: true,
      require_key: true,
      keys: { access_key: ACCESS_KEY },
    }),
  };
  const spell = async (kind: Kind) =>
    successData(
      await call("create-spell", {
        name: `Probe ${kind}`,
        rank: 1,
        content_source_id: sources[kind],
      }, alice),
    ).id as number;
  const spells: Record<Kind, number> = {
    "official": 1, // seeded
    "official unpublished": 4, // seeded
    "alice's published": await spell("alice's published"),
    "alice's unpublished": await spell("alice's unpublished"),
    "alice's key-locked": await spell("alice's key-locked"),
  };
  return { users, tokens, sources, spells };
}

function ids(res: CallResult): number[] {
  return successData(res).map((r: { id: number }) => r.id);
}

async function assertCell(f: Fixture, who: Who, via: "jwt" | "api_key", kind: Kind) {
  const opt = { token: f.tokens[who][via] };
  const cell = `${who} via ${via} on ${kind} content`;
  const readable = CAN_READ[kind][who];
  const writable = CAN_WRITE[kind][who];
  const spellId = f.spells[kind];
  const sourceId = f.sources[kind];

  // Reading through find.
  const one = successData(await call("find-spell", { id: spellId }, opt));
  equal(one?.id ?? null, readable ? spellId : null, `${cell}: find-spell by id`);
  deepStrictEqual(
    ids(await call("find-spell", { content_sources: [sourceId] }, opt)).includes(spellId),
    readable,
    `${cell}: find-spell by content_sources`,
  );
  const src = successData(await call("find-content-source", { id: sourceId }, opt));
  equal(src?.id ?? null, readable ? sourceId : null, `${cell}: find-content-source`);
  if (src && who !== "alice") equal(src.keys, null, `${cell}: keys stay hidden`);

  // Writing through create: update of the spell, a new spell in the source, update of the source.
  const update = await call("create-spell", { id: spellId, description: `Edited by ${who}` }, opt);
  if (writable) equal(successData(update).description, `Edited by ${who}`, `${cell}: update`);
  else {
    equal(
      failMessage(update),
      readable ? "You do not have access to this spell" : "Spell not found",
      `${cell}: update refused`,
    );
  }
  const insert = await call(
    "create-spell",
    { name: `New by ${who}`, rank: 0, content_source_id: sourceId },
    opt,
  );
  if (writable) equal(successData(insert).content_source_id, sourceId, `${cell}: insert`);
  else {
    equal(
      failMessage(insert),
      readable ? "You do not have access to this content source" : "Content source not found",
      `${cell}: insert refused`,
    );
  }
  const editSource = await call("create-content-source", { id: sourceId, contact_info: who }, opt);
  if (writable) equal(successData(editSource).contact_info, who, `${cell}: source update`);
  else {
    equal(
      failMessage(editSource),
      readable ? "You do not have access to this content source" : "Content source not found",
      `${cell}: source update refused`,
    );
  }
}

test("content visibility and write matrix: every caller, credential and kind of source", async () => {
  const f = await fixture();
  for (const who of ["alice", "bob", "admin"] as const) {
    for (const via of ["jwt", "api_key"] as const) {
      for (const kind of KINDS) await assertCell(f, who, via, kind);
    }
  }
});

test("a key-locked source opens to a user who enters its key, for all their credentials", async () => {
  const f = await fixture();
  const bob = f.tokens.bob;
  const locked = f.sources["alice's key-locked"];
  const spellId = f.spells["alice's key-locked"];

  equal(
    failMessage(
      await call("unlock-content-source", { id: locked, access_key: "wrong" }, {
        token: bob.jwt,
      }),
    ),
    "Invalid access key",
  );
  equal(successData(await call("find-spell", { id: spellId }, { token: bob.jwt })), null);

  const opened = successData(
    await call("unlock-content-source", { id: locked, access_key: ACCESS_KEY }, {
      token: bob.api_key,
    }),
  );
  equal(opened.id, locked);
  equal(opened.keys, null, "the key itself is never shown to a non-owner");
  for (const token of [bob.jwt, bob.api_key]) {
    equal(successData(await call("find-spell", { id: spellId }, { token })).id, spellId);
    equal(
      failMessage(await call("create-spell", { id: spellId, description: "x" }, { token })),
      "You do not have access to this spell",
    );
  }
  // The unlock is bob's alone: the admin still cannot read it.
  equal(
    successData(await call("find-spell", { id: spellId }, { token: f.tokens.admin.jwt })),
    null,
  );
  // The owner sees the key.
  const own = successData(
    await call("find-content-source", { id: locked }, { token: f.tokens.alice.jwt }),
  );
  deepStrictEqual(own.keys, { access_key: ACCESS_KEY });

  // Unpublished sources cannot be unlocked, and unknown ones are not found.
  equal(
    failMessage(
      await call("unlock-content-source", {
        id: f.sources["alice's unpublished"],
        access_key: ACCESS_KEY,
      }, { token: bob.jwt }),
    ),
    "Content source not found",
  );
});
