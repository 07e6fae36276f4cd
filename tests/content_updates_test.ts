import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { ContentUpdate, ContentUpdateWebhook } from "@shared/content_updates.ts";
import { ContentType } from "@shared/content_types.ts";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
} from "./_harness.ts";
import { callSignedOut } from "./support/signed_out.ts";
import { freePort } from "../scripts/support/free_port.ts";
import { runtimeDeno, runtimeDenoEnv } from "../scripts/support/deno_runtime.ts";

/** A stand-in for the moderation bot: records each webhook and answers as told. */
class TestBot {
  mode: "answer" | "error" | "slow" = "answer";
  readonly received: { authorization: string | null; body: ContentUpdateWebhook }[] = [];
  readonly #controller = new AbortController();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;

  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, signal: this.#controller.signal, onListen: () => {} },
      (req) => this.#answer(req),
    );
  }

  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}/content-update`;
  }

  /** Stops listening: from now on the bot is down. */
  async stop(): Promise<void> {
    this.#controller.abort();
    await this.#server.finished;
  }

  async #answer(req: Request): Promise<Response> {
    const body = ContentUpdateWebhook.parse(await req.json());
    this.received.push({ authorization: req.headers.get("authorization"), body });
    if (this.mode === "error") return new Response("bot crashed", { status: 500 });
    if (this.mode === "slow") await new Promise((resolve) => setTimeout(resolve, 3_500));
    return Response.json({ discord_msg_id: `${Date.now()}${this.received.length}` });
  }
}

// The server is started once per test process, by whichever test file loads the harness first,
// and reads its environment once, when it starts (_shared/env.ts). A test therefore cannot set
// CONTENT_UPDATE_WEBHOOK_URL before start-up; instead each test here points the server's loaded
// configuration (the same module instance) at the bot on a free port, and restores it after.
// Loaded only now: the harness has filled the process environment env.ts validates.
const { env } = await import("../supabase/functions/_shared/env.ts");
const bot = new TestBot();
const secret = env.CONTENT_UPDATE_SECRET ?? `test-moderation-secret-${crypto.randomUUID()}`;

/** A test during which the service posts proposals to the test bot and knows `secret`. */
function botTest(name: string, fn: () => Promise<void>): void {
  test(name, async () => {
    const saved = { url: env.CONTENT_UPDATE_WEBHOOK_URL, secret: env.CONTENT_UPDATE_SECRET };
    env.CONTENT_UPDATE_WEBHOOK_URL = bot.url;
    env.CONTENT_UPDATE_SECRET = secret;
    try {
      await fn();
    } finally {
      if (saved.url === undefined) delete env.CONTENT_UPDATE_WEBHOOK_URL;
      else env.CONTENT_UPDATE_WEBHOOK_URL = saved.url;
      if (saved.secret === undefined) delete env.CONTENT_UPDATE_SECRET;
      else env.CONTENT_UPDATE_SECRET = saved.secret;
    }
  });
}

async function makeSource(options: { owner?: string; published?: boolean } = {}): Promise<number> {
  const [row] = await adminSql<{ id: number }[]>`
    insert into public.content_source (name, is_published, user_id)
    values (${`Source ${crypto.randomUUID().slice(0, 8)}`}, ${options.published ?? true},
      ${options.owner ?? null})
    returning id`;
  if (!row) throw new Error("content source not created");
  return row.id;
}

async function makeSpell(sourceId: number, name = "Fireball"): Promise<number> {
  const [row] = await adminSql<{ id: number }[]>`
    insert into public.spell (name, rank, content_source_id, description)
    values (${name}, 3, ${sourceId}, 'A burst of flame') returning id`;
  if (!row) throw new Error("spell not created");
  return row.id;
}

async function spellRow(id: number) {
  const [row] = await adminSql<{ name: string; rank: number; description: string }[]>`
    select name, rank, description from public.spell where id = ${id}`;
  return row ?? null;
}

/** Proposes a change as `token` and returns the stored proposal. */
async function propose(token: string, body: Record<string, unknown>): Promise<ContentUpdate> {
  return ContentUpdate.parse(successData(await call("create-content-update", body, { token })));
}

/** The bot's call, with the service secret unless told otherwise. */
function moderate(
  msgId: string,
  state: string,
  moderator = "900000000000000001",
  token = secret,
) {
  return call("update-content-update", {
    discord_msg_id: msgId,
    discord_user_id: moderator,
    discord_user_name: `mod-${moderator.slice(-3)}`,
    state,
  }, { token });
}

async function findOne(token: string, id: number): Promise<ContentUpdate> {
  return ContentUpdate.parse(successData(await call("find-content-update", { id }, { token })));
}

botTest(
  "create-content-update stores a PENDING proposal, posts it to the bot, keeps its message id",
  async () => {
    const user = await makeUser();
    const sourceId = await makeSource();
    const spellId = await makeSpell(sourceId);
    const before = bot.received.length;
    const proposal = await propose(user.access_token, {
      type: "spell",
      action: "UPDATE",
      ref_id: spellId,
      content_source_id: sourceId,
      data: { description: "A bigger burst of flame" },
    });
    equal(proposal.status.state, "PENDING");
    equal(proposal.user_id, user.user_id);
    deepStrictEqual([proposal.upvotes, proposal.downvotes], [[], []]);
    ok(proposal.discord_msg_id, "the bot's message id is stored");

    equal(bot.received.length, before + 1);
    const hook = bot.received.at(-1);
    equal(hook?.authorization, `Bearer ${secret}`);
    equal(hook?.body.submitter.user_id, user.user_id);
    equal(hook?.body.submitter.display_name, user.email.split("@")[0]);
    const [source] = await adminSql<{ name: string }[]>`
    select name from public.content_source where id = ${sourceId}`;
    deepStrictEqual(hook?.body.content_source, { id: sourceId, name: source?.name });
    deepStrictEqual(hook?.body.content_update, { ...proposal, discord_msg_id: null });

    deepStrictEqual(await findOne(user.access_token, proposal.id), proposal);
    equal((await spellRow(spellId))?.description, "A burst of flame", "nothing applies yet");
  },
);

botTest("create-content-update works with an API key", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const sourceId = await makeSource();
  const proposal = await propose(apiKey, {
    type: "trait",
    action: "CREATE",
    content_source_id: sourceId,
    data: { name: "Fiery" },
  });
  equal(proposal.user_id, user.user_id);
  equal(proposal.ref_id, null);
});

botTest("create-content-update refuses proposals that could never apply", async () => {
  const user = await makeUser();
  const token = user.access_token;
  const sourceId = await makeSource();
  const spellId = await makeSpell(sourceId);
  const otherSource = await makeSource();
  const base = { type: "spell", content_source_id: sourceId };
  equal(
    failMessage(
      await call("create-content-update", { ...base, action: "UPDATE", data: {} }, {
        token,
      }),
    ),
    "Missing required field: ref_id",
  );
  equal(
    failMessage(
      await call("create-content-update", {
        ...base,
        action: "UPDATE",
        ref_id: spellId,
        data: { colour: "red" },
      }, { token }),
    ),
    "Invalid value for data: spell has no field colour",
  );
  equal(
    failMessage(
      await call("create-content-update", {
        ...base,
        action: "UPDATE",
        ref_id: spellId,
        data: { content_source_id: otherSource },
      }, { token }),
    ),
    "Invalid value for data: spell has no field content_source_id",
  );
  match(
    failMessage(
      await call("create-content-update", {
        ...base,
        content_source_id: otherSource,
        action: "DELETE",
        ref_id: spellId,
        data: {},
      }, { token }),
    ),
    /^Content not found: spell \d+ is not in content source \d+$/,
  );
  equal(
    failMessage(
      await call("create-content-update", { ...base, action: "CREATE", data: { name: "Ember" } }, {
        token,
      }),
    ),
    "Missing required field: data.rank",
  );
  match(
    failMessage(
      await call("create-content-update", {
        ...base,
        action: "UPDATE",
        ref_id: spellId,
        data: { rarity: "LEGENDARY" },
      }, { token }),
    ),
    /^Invalid value/,
  );
  match(
    failMessage(
      await call("create-content-update", { ...base, type: "potion", action: "CREATE", data: {} }, {
        token,
      }),
    ),
    /^Invalid value for type/,
  );
});

test("every content type of the interface maps to a content table", async () => {
  const rows = await adminSql<{ type: string; fields: string[] }[]>`
    select t as type, private.content_update_fields(t) as fields
    from unnest(${ContentType.options}::text[]) t`;
  for (const row of rows) ok(row.fields.includes("name"), `${row.type} has writable fields`);
  equal(rows.length, ContentType.options.length);
});

botTest("create-content-update refuses a source the caller cannot read", async () => {
  const owner = await makeUser();
  const stranger = await makeUser();
  const privateSource = await makeSource({ owner: owner.user_id, published: false });
  const res = await call("create-content-update", {
    type: "trait",
    action: "CREATE",
    content_source_id: privateSource,
    data: { name: "Secret" },
  }, { token: stranger.access_token });
  match(failMessage(res), /You do not have access/);
});

botTest("find-content-update requires sign-in, sorts by id and filters", async () => {
  const alice = await makeUser();
  const bob = await makeUser();
  const sourceId = await makeSource();
  const spellId = await makeSpell(sourceId);
  const body = { type: "spell", action: "UPDATE", ref_id: spellId, content_source_id: sourceId };
  const first = await propose(alice.access_token, { ...body, data: { name: "Fireball I" } });
  const second = await propose(alice.access_token, { ...body, data: { name: "Fireball II" } });
  const bobs = await propose(bob.access_token, { ...body, data: { name: "Fireball III" } });
  successData(await moderate(second.discord_msg_id ?? "", "REJECT"));

  // Signed out, without credentials, proposals are listed as for the anon key.
  successData(await callSignedOut("find-content-update", {}));
  const mine = successData(
    await call("find-content-update", { user_id: alice.user_id }, { token: bob.access_token }),
  );
  deepStrictEqual(mine.map((p: ContentUpdate) => p.id), [first.id, second.id]);
  const listed = successData(
    await call("find-content-update", { id: [bobs.id, first.id] }, { token: bob.access_token }),
  );
  deepStrictEqual(listed.map((p: ContentUpdate) => p.id), [first.id, bobs.id]);
  const rejected = successData(
    await call("find-content-update", { user_id: alice.user_id, state: "REJECTED" }, {
      token: alice.access_token,
    }),
  );
  deepStrictEqual(rejected.map((p: ContentUpdate) => p.id), [second.id]);
  deepStrictEqual(rejected[0].status, {
    state: "REJECTED",
    discord_user_id: "900000000000000001",
    discord_user_name: "mod-001",
  });
  const future = successData(
    await call("find-content-update", {
      user_id: alice.user_id,
      created: { from: new Date(Date.now() + 3_600_000).toISOString() },
    }, { token: alice.access_token }),
  );
  deepStrictEqual(future, []);
  const sinceEpoch = successData(
    await call("find-content-update", { user_id: bob.user_id, created: {} }, {
      token: alice.access_token,
    }),
  );
  deepStrictEqual(sinceEpoch.map((p: ContentUpdate) => p.id), [bobs.id]);
  equal(
    successData(
      await call("find-content-update", { id: 999_999_999 }, { token: bob.access_token }),
    ),
    null,
  );
});

botTest("update-content-update accepts only the service secret", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const refusals = [
    await moderate("1", "APPROVE", "1", `${secret}-wrong`),
    await moderate("1", "APPROVE", "1", "x".repeat(secret.length)),
    await moderate("1", "APPROVE", "1", user.access_token),
    await moderate("1", "APPROVE", "1", apiKey),
  ];
  for (const res of refusals) equal(failMessage(res, 401), "Invalid auth token");
  const anonymous = await call("update-content-update", {
    discord_msg_id: "1",
    discord_user_id: "1",
    discord_user_name: "m",
    state: "APPROVE",
  });
  equal(anonymous.status, 401);
  const unknown = await moderate("no-such-message", "APPROVE");
  equal(failMessage(unknown), "Content update not found");
  equal(unknown.headers.get("x-ratelimit-limit"), "600", "the service bucket");
  match(failMessage(await moderate("1", "MAYBE")), /^Invalid value for state/);
});

botTest("update-content-update votes: one per voter, a new vote replaces the old", async () => {
  const user = await makeUser();
  const sourceId = await makeSource();
  const spellId = await makeSpell(sourceId);
  const proposal = await propose(user.access_token, {
    type: "spell",
    action: "UPDATE",
    ref_id: spellId,
    content_source_id: sourceId,
    data: { rank: 4 },
  });
  const msg = proposal.discord_msg_id ?? "";
  equal(successData(await moderate(msg, "UPVOTE", "111")), true);
  equal(successData(await moderate(msg, "UPVOTE", "222")), true);
  equal(successData(await moderate(msg, "UPVOTE", "111")), true);
  equal(successData(await moderate(msg, "DOWNVOTE", "333")), true);
  let found = await findOne(user.access_token, proposal.id);
  // A vote again goes to the end of its list, as the bot's lists show the latest last.
  deepStrictEqual(found.upvotes, [{ discord_user_id: "222" }, { discord_user_id: "111" }]);
  deepStrictEqual(found.downvotes, [{ discord_user_id: "333" }]);
  equal(successData(await moderate(msg, "DOWNVOTE", "111")), true);
  found = await findOne(user.access_token, proposal.id);
  deepStrictEqual(found.upvotes, [{ discord_user_id: "222" }]);
  deepStrictEqual(found.downvotes, [{ discord_user_id: "333" }, { discord_user_id: "111" }]);
  equal(found.status.state, "PENDING", "votes never change the state");
  equal((await spellRow(spellId))?.rank, 3);
});

botTest(
  "update-content-update applies 5 concurrent identical APPROVE deliveries once",
  async () => {
    const user = await makeUser();
    const sourceId = await makeSource();
    const name = `Ember ${crypto.randomUUID().slice(0, 8)}`;
    const proposal = await propose(user.access_token, {
      type: "spell",
      action: "CREATE",
      content_source_id: sourceId,
      data: { name, rank: 1, traditions: ["arcane", "primal"] },
    });
    const msg = proposal.discord_msg_id ?? "";
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => moderate(msg, "APPROVE", "444")),
    );
    deepStrictEqual(answers.map((res) => successData(res)), [true, true, true, true, true]);
    const created = await adminSql<{ id: number; traditions: string[] }[]>`
    select id, traditions from public.spell where name = ${name}`;
    equal(created.length, 1, "the spell was created exactly once");
    deepStrictEqual(created[0]?.traditions, ["arcane", "primal"]);
    const found = await findOne(user.access_token, proposal.id);
    equal(found.status.state, "APPROVED");
    equal(found.ref_id, created[0]?.id, "a created record's id is kept as ref_id");
    equal(found.status.discord_user_id, "444");
  },
);

botTest("update-content-update APPROVE applies a partial UPDATE and a DELETE", async () => {
  const user = await makeUser();
  const sourceId = await makeSource();
  const spellId = await makeSpell(sourceId);
  const doomed = await makeSpell(sourceId, "Doomed");
  const update = await propose(user.access_token, {
    type: "spell",
    action: "UPDATE",
    ref_id: spellId,
    content_source_id: sourceId,
    data: { rank: 5 },
  });
  successData(await moderate(update.discord_msg_id ?? "", "APPROVE"));
  deepStrictEqual(await spellRow(spellId), {
    name: "Fireball",
    rank: 5,
    description: "A burst of flame",
  });
  const removal = await propose(user.access_token, {
    type: "spell",
    action: "DELETE",
    ref_id: doomed,
    content_source_id: sourceId,
    data: {},
  });
  successData(await moderate(removal.discord_msg_id ?? "", "APPROVE"));
  equal(await spellRow(doomed), null);
});

botTest(
  "update-content-update APPROVE keeps an ancestry's own trait in step: renamed on UPDATE, found or made on CREATE",
  async () => {
    const user = await makeUser();
    const sourceId = await makeSource();
    const otherSourceId = await makeSource();
    const [elfTrait, foreignTrait] = await adminSql<{ id: number }[]>`
      insert into public.trait (name, content_source_id)
      values ('Elf', ${sourceId}), ('Elf', ${otherSourceId}) returning id`;
    const [elf] = await adminSql<{ id: number }[]>`
      insert into public.ancestry (name, content_source_id, trait_id)
      values ('Elf', ${sourceId}, ${elfTrait!.id}) returning id`;
    const traitName = async (id: number) =>
      (await adminSql<{ name: string }[]>`select name from public.trait where id = ${id}`)[0]?.name;
    const approve = async (body: Record<string, unknown>) => {
      const proposal = await propose(user.access_token, { content_source_id: sourceId, ...body });
      const res = await moderate(proposal.discord_msg_id ?? "", "APPROVE");
      return { res, proposal: await findOne(user.access_token, proposal.id) };
    };

    const renamed = await approve({
      type: "ancestry",
      action: "UPDATE",
      ref_id: elf!.id,
      data: { name: "High Elf", trait_id: elfTrait!.id },
    });
    equal(successData(renamed.res), true);
    equal(await traitName(elfTrait!.id), "High Elf");

    // A new record's trait_id only asks for a trait: the source's trait of its name is linked...
    const dwarf = await approve({
      type: "ancestry",
      action: "CREATE",
      data: { name: "Dwarf", trait_id: foreignTrait!.id },
    });
    successData(dwarf.res);
    const [made] = await adminSql<{ trait_id: number; trait_name: string; source: number }[]>`
      select a.trait_id, t.name as trait_name, t.content_source_id as source
      from public.ancestry a join public.trait t on t.id = a.trait_id
      where a.id = ${dwarf.proposal.ref_id}`;
    deepStrictEqual({ name: made?.trait_name, source: made?.source }, {
      name: "Dwarf",
      source: sourceId,
    });
    // ...an existing one when the name matches in any case, rather than a second trait.
    const again = await approve({
      type: "ancestry",
      action: "CREATE",
      data: { name: "high elf", trait_id: foreignTrait!.id },
    });
    successData(again.res);
    const [linked] = await adminSql<{ trait_id: number }[]>`
      select trait_id from public.ancestry where id = ${again.proposal.ref_id}`;
    equal(linked?.trait_id, elfTrait!.id);

    // Only the source's own traits are renamed: pointing at another source's fails, nothing moves.
    const foreign = await approve({
      type: "ancestry",
      action: "UPDATE",
      ref_id: elf!.id,
      data: { name: "Wood Elf", trait_id: foreignTrait!.id },
    });
    match(failMessage(foreign.res), /trait \d+ is not in content source \d+/);
    equal(foreign.proposal.status.state, "PENDING");
    equal(await traitName(foreignTrait!.id), "Elf");
    const [unchanged] = await adminSql<{ name: string }[]>`
      select name from public.ancestry where id = ${elf!.id}`;
    equal(unchanged?.name, "High Elf");
  },
);

botTest("update-content-update: APPROVED and REJECTED are final", async () => {
  const user = await makeUser();
  const sourceId = await makeSource();
  const spellId = await makeSpell(sourceId);
  const body = { type: "spell", action: "UPDATE", ref_id: spellId, content_source_id: sourceId };
  const approved = await propose(user.access_token, { ...body, data: { name: "Fireball+" } });
  const approvedMsg = approved.discord_msg_id ?? "";
  successData(await moderate(approvedMsg, "APPROVE"));
  equal(failMessage(await moderate(approvedMsg, "REJECT")), "Content update already approved");
  equal(failMessage(await moderate(approvedMsg, "UPVOTE")), "Content update already approved");
  equal(successData(await moderate(approvedMsg, "APPROVE", "555")), true, "a repeat is success");
  equal((await findOne(user.access_token, approved.id)).status.state, "APPROVED");

  const rejected = await propose(user.access_token, { ...body, data: { name: "Fireball-" } });
  const rejectedMsg = rejected.discord_msg_id ?? "";
  successData(await moderate(rejectedMsg, "REJECT"));
  equal(successData(await moderate(rejectedMsg, "REJECT")), true, "a repeat is success");
  equal(failMessage(await moderate(rejectedMsg, "APPROVE")), "Content update already rejected");
  equal((await spellRow(spellId))?.name, "Fireball+");
});

botTest("update-content-update: an approval that cannot apply stays PENDING", async () => {
  const user = await makeUser();
  const sourceId = await makeSource();
  // Stored directly: create-content-update refuses a rank the table cannot hold when proposed.
  const msgId = `${Date.now()}77`;
  const [proposal] = await adminSql<{ id: number }[]>`
    insert into public.content_update
      (user_id, type, action, data, content_source_id, discord_msg_id)
    values (${user.user_id}, 'spell', 'CREATE', '{"name": "Overreach", "rank": 11}', ${sourceId},
      ${msgId})
    returning id`;
  if (!proposal) throw new Error("proposal not stored");
  const res = await moderate(msgId, "APPROVE");
  match(failMessage(res), /^Could not apply content update \d+: .*spell_rank_range/);
  equal((await findOne(user.access_token, proposal.id)).status.state, "PENDING");
  const made = await adminSql`select 1 from public.spell where name = 'Overreach'`;
  equal(made.length, 0);
});

botTest("update-content-update makes the author a community paragon at 100 approved", async () => {
  const user = await makeUser();
  const sourceId = await makeSource();
  const spellId = await makeSpell(sourceId);
  await adminSql`
    insert into public.content_update
      (user_id, type, ref_id, action, data, content_source_id, state, created_at, decided_at)
    select ${user.user_id}, 'spell', ${spellId}, 'UPDATE', '{"rank": 3}', ${sourceId},
      'APPROVED', now() - interval '2 days', now() - interval '2 days'
    from generate_series(1, 98)`;
  const body = { type: "spell", action: "UPDATE", ref_id: spellId, content_source_id: sourceId };
  const paragon = async () =>
    (await adminSql<{ p: boolean }[]>`
      select is_community_paragon as p from public.public_user where user_id = ${user.user_id}`)[0]
      ?.p;
  const p99 = await propose(user.access_token, { ...body, data: { rank: 4 } });
  successData(await moderate(p99.discord_msg_id ?? "", "APPROVE"));
  equal(await paragon(), false, "99 approved");
  const p100 = await propose(user.access_token, { ...body, data: { rank: 5 } });
  successData(await moderate(p100.discord_msg_id ?? "", "APPROVE"));
  equal(await paragon(), true, "100 approved");
});

botTest("create-content-update stores the proposal when the bot errors or is slow", async () => {
  const user = await makeUser();
  const sourceId = await makeSource();
  const body = { type: "trait", action: "CREATE", content_source_id: sourceId };
  bot.mode = "error";
  const crashed = await propose(user.access_token, { ...body, data: { name: "Crashed" } });
  equal(crashed.discord_msg_id, null);
  bot.mode = "slow";
  const started = performance.now();
  const slow = await propose(user.access_token, { ...body, data: { name: "Slow" } });
  const waited = performance.now() - started;
  bot.mode = "answer";
  equal(slow.discord_msg_id, null);
  ok(waited < 3_400, `answered after the timeout, not the bot (${Math.round(waited)} ms)`);
  equal((await findOne(user.access_token, slow.id)).status.state, "PENDING");
});

// Last: the bot stays down afterwards.
botTest(
  "create-content-update stores the proposal with no message id while the bot is down",
  async () => {
    await bot.stop();
    const user = await makeUser();
    const sourceId = await makeSource();
    const proposal = await propose(user.access_token, {
      type: "trait",
      action: "CREATE",
      content_source_id: sourceId,
      data: { name: "Offline" },
    });
    equal(proposal.discord_msg_id, null);
    equal(proposal.status.state, "PENDING");
    const stored = await findOne(user.access_token, proposal.id);
    equal(stored.discord_msg_id, null);
  },
);

test("a moderation bot that cannot be reached is logged without its webhook URL, whose path holds its token (on the platform's Deno, which names the URL)", async () => {
  const token = `WebhookToken${crypto.randomUUID().replaceAll("-", "")}`;
  const url = `http://127.0.0.1:${freePort()}/api/webhooks/123/${token}?wait=true`;
  const module = new URL(
    "../supabase/functions/_shared/moderation/post_to_bot.ts",
    import.meta.url,
  );
  const script = `const { postToBot } = await import(${JSON.stringify(module.href)});
    console.log(JSON.stringify(await postToBot(${JSON.stringify(url)}, "secret", {})));`;
  const { stdout, stderr } = await new Deno.Command(await runtimeDeno(), {
    args: ["eval", "--config", new URL("../deno.json", import.meta.url).pathname, script],
    env: runtimeDenoEnv(),
  }).output();
  const outcome = new TextDecoder().decode(stdout);
  match(outcome, /"ok":false,"reason":"bot unreachable: /, new TextDecoder().decode(stderr));
  ok(!outcome.includes(token), outcome);
});
