import { deepStrictEqual, equal, match, ok, throws } from "node:assert/strict";
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
  signClaims,
  successData,
  test,
} from "./_harness.ts";
import { withinOneMinute } from "./support/http.ts";
import { checkClaims, MAX_SESSION_SECONDS } from "../supabase/functions/_shared/auth/jwt.ts";
import { Fail } from "../supabase/functions/_shared/envelope.ts";
import { createApiKeys } from "../scripts/support/accounts.ts";
import { raisedInSql } from "../supabase/functions/_shared/refusals.ts";

const signed = signClaims;

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** A call as signed-out supabase-js makes it: the anon key as bearer and in `apikey`. */
async function asVisitor(fn: string, body: unknown, ip = randomIp()): Promise<CallResult> {
  const key = await anonKey();
  return await call(fn, body, { token: key, ip, headers: { apikey: key } });
}

// Issue 17, item 9: audience, issuer and lifetime of session tokens.

test("a session token must have the audience authenticated", async () => {
  const user = await makeUser();
  const base = { sub: user.user_id, role: "authenticated", iat: now(), exp: now() + 600 };
  for (const aud of [undefined, "anon", ["other"]]) {
    const token = await signed(aud === undefined ? base : { ...base, aud });
    equal(
      failMessage(await call("find-api-client", {}, { token }), 401),
      'Invalid token: the audience (aud) must be "authenticated"',
    );
  }
  const listed = await signed({ ...base, aud: ["other", "authenticated"] });
  deepStrictEqual(successData(await call("find-api-client", {}, { token: listed })), []);
});

test("a session token may live at most a week, as Supabase Auth issues them", async () => {
  const user = await makeUser();
  const base = { sub: user.user_id, role: "authenticated", aud: "authenticated" };
  const refusal =
    `Invalid token: a session token may live at most ${MAX_SESSION_SECONDS} seconds (exp - iat)`;
  const tenYears = await signed({ ...base, iat: now(), exp: now() + 10 * 365 * 24 * 3600 });
  equal(failMessage(await call("find-api-client", {}, { token: tenYears }), 401), refusal);
  const eightDays = await signed({ ...base, iat: now() - 3600, exp: now() + 8 * 24 * 3600 });
  equal(failMessage(await call("find-api-client", {}, { token: eightDays }), 401), refusal);
  const undated = await signed({ ...base, exp: now() + 600 });
  equal(failMessage(await call("find-api-client", {}, { token: undated }), 401), refusal);
  // Dated ten years ahead with an hour of life: refused, not a decade-long session.
  const ahead = now() + 10 * 365 * 24 * 3600;
  const future = await signed({ ...base, iat: ahead, exp: ahead + 3600 });
  equal(
    failMessage(await call("find-api-client", {}, { token: future }), 401),
    "Invalid token: it was issued in the future (iat); check the signer's clock",
  );
  const skewed = await signed({ ...base, iat: now() + 30, exp: now() + 600 });
  deepStrictEqual(successData(await call("find-api-client", {}, { token: skewed })), []);
  const week = await signed({ ...base, iat: now(), exp: now() + MAX_SESSION_SECONDS });
  deepStrictEqual(successData(await call("find-api-client", {}, { token: week })), []);
});

test("with SUPABASE_URL set, a session token must come from that project's Auth (iss)", () => {
  const issuer = "https://project.supabase.co/auth/v1";
  const claims = {
    sub: crypto.randomUUID(),
    role: "authenticated",
    aud: "authenticated",
    iat: now(),
    exp: now() + 600,
  };
  equal(checkClaims({ ...claims, iss: issuer }, issuer).role, "authenticated");
  for (const iss of [undefined, "https://other.supabase.co/auth/v1", "supabase"]) {
    throws(
      () => checkClaims(iss === undefined ? claims : { ...claims, iss }, issuer),
      (e) => e instanceof Fail && e.httpStatus === 401 && /issued by this project/.test(e.message),
    );
  }
  // Without SUPABASE_URL there is no issuer to compare with.
  equal(checkClaims({ ...claims, iss: "anything" }, null).role, "authenticated");
});

test("the service role key is never accepted as a bearer", async () => {
  const token = await signed({
    role: "service_role",
    iss: "supabase",
    iat: now(),
    exp: now() + 600,
  });
  for (const fn of ["find-spell", "find-api-client", "update-content-update"]) {
    const res = await call(fn, {}, { token });
    equal(res.status, 401, fn);
  }
  match(
    failMessage(await call("find-spell", {}, { token }), 401),
    /service role key is not accepted/,
  );
});

test("a bearer shaped like a JWT whose header is not one is refused as the caller's (401), not 503", async () => {
  for (const token of ["aaa.bbb.ccc", `${btoa("not json!")}.e30.x`]) {
    equal(
      failMessage(await call("find-spell", { id: 1 }, { token }), 401),
      "Invalid token: the signature or format is not valid",
      token,
    );
  }
});

// Issue 16, item 9: signed out, the project's anon key reads what is public.

test("the anon key reads official published content, and nothing unpublished", async () => {
  const spells = successData(await asVisitor("find-spell", { name: "kindle spark" }));
  deepStrictEqual(spells.map((s: { id: number }) => s.id), [1]);
  const sources = successData(await asVisitor("find-content-source", {}));
  ok(sources.length > 0);
  for (const source of sources) {
    equal(source.is_published, true);
    equal(source.user_id, null);
    equal(source.keys, undefined, "access keys stay hidden");
  }
  equal(successData(await asVisitor("find-content-source", { id: 2 })), null);
  const found = successData(await asVisitor("search-data", { text: "kindle" }));
  ok(found.spells.some((s: { id: number }) => s.id === 1));
});

test("the anon key reads public profiles, proposals on public books and their stats", async () => {
  const author = await makeUser();
  const [hidden] = await adminSql<{ id: number }[]>`
    insert into public.content_source (name, user_id, is_published)
    values ('Private notes', ${author.user_id}, false) returning id`;
  const [shown, secret] = await adminSql<{ id: number }[]>`
    insert into public.content_update (user_id, type, ref_id, action, data, content_source_id)
    values (${author.user_id}, 'spell', null, 'CREATE', '{"name": "Kindle Sparks", "rank": 0}', 1),
           (${author.user_id}, 'spell', null, 'CREATE', '{"name": "Hidden", "rank": 0}', ${
    hidden!.id
  })
    returning id`;

  const profile = successData(await asVisitor("get-user", { id: author.user_id }));
  equal(profile.user_id, author.user_id);
  deepStrictEqual(profile.api, { clients: [] });
  equal(
    failMessage(await asVisitor("get-user", {}), 401),
    "Signed out: sign in (or send an API key) to do this",
  );

  const pending = successData(await asVisitor("find-content-update", { state: "PENDING" }));
  const ids = pending.map((u: { id: number }) => u.id);
  ok(ids.includes(shown!.id), "a proposal on an official book is public");
  ok(!ids.includes(secret!.id), "a proposal on a private book stays hidden");
  equal(successData(await asVisitor("find-content-update", { id: secret!.id })), null);

  const stats = successData(await asVisitor("get-content-source-stats", { content_source_id: 1 }));
  equal(stats.source.id, 1);
  equal(typeof stats.count, "number");
  equal(
    failMessage(await asVisitor("get-content-source-stats", { content_source_id: hidden!.id })),
    "Content source not found",
  );
});

test("the anon key reads a public character but not a private one, and writes nothing", async () => {
  const owner = await makeUser();
  const created = successData(
    await call("create-character", { name: "Shown" }, { token: owner.access_token }),
  );
  const hidden = successData(
    await call("create-character", { name: "Hidden" }, { token: owner.access_token }),
  );
  await adminSql`update public.character set options = '{"is_public": true}'
                 where id = ${created.id}`;
  equal(successData(await asVisitor("find-character", { id: created.id })).name, "Shown");
  equal(successData(await asVisitor("find-character", { id: hidden.id })), null);
  deepStrictEqual(successData(await asVisitor("find-character", {})), []);

  const signIn = "Signed out: sign in (or send an API key) to do this";
  equal(failMessage(await asVisitor("create-character", { name: "Nope" }), 401), signIn);
  // As the reference answers a signed-out web client: success, no access, nothing written.
  deepStrictEqual(
    successData(await asVisitor("update-character", { id: created.id, name: "Renamed" })),
    { __forbidden: true, reason: "WRITE_DENIED" },
  );
  deepStrictEqual(
    successData(await asVisitor("update-character", { id: hidden.id, name: "Renamed" })),
    { __forbidden: true, reason: "NOT_VISIBLE" },
  );
  equal(failMessage(await asVisitor("create-content-source", { name: "Nope" }), 401), signIn);
  equal(failMessage(await asVisitor("find-api-client", {}), 401), signIn);
  const rows = await adminSql`select name from public.character
                              where id in (${created.id}, ${hidden.id}) order by id`;
  deepStrictEqual(rows.map((r) => r.name), ["Shown", "Hidden"]);
  const [count] = await adminSql`select count(*)::int as n from public.character
                                 where user_id = ${owner.user_id}`;
  equal(count?.n, 2);
});

test("the anon key counts per client address: one visitor cannot spend another's budget", async () => {
  await withinOneMinute(10_000);
  const ip = randomIp();
  const statuses: number[] = [];
  let last: CallResult | undefined;
  for (let i = 0; i < 31; i++) {
    last = await asVisitor("find-spell", { id: 1 }, ip);
    statuses.push(last.status);
  }
  deepStrictEqual(statuses.slice(0, 30), Array(30).fill(200));
  match(failMessage(last!, 429), /^Rate limit exceeded/);
  equal(last!.headers.get("x-ratelimit-limit"), "30");
  const other = await asVisitor("find-spell", { id: 1 });
  equal(successData(other).id, 1);
  equal(other.headers.get("x-ratelimit-limit"), "30");
});

test("an anon key that names a user is refused", async () => {
  const token = await signed({ role: "anon", sub: crypto.randomUUID(), exp: now() + 600 });
  equal(
    failMessage(await call("find-spell", {}, { token }), 401),
    "Invalid token: an anon key must not name a user (sub)",
  );
});

// Issue 17, item 2: keys that do not resolve spend the client address's budget.

test("random API keys from one address stop at that address's budget; valid keys go on", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  successData(await call("find-spell", { id: 1 }, { token: apiKey }));
  await withinOneMinute(20_000);
  const flooder = randomIp();
  const statuses: number[] = [];
  for (let i = 0; i < 40; i++) {
    const res = await call("find-spell", {}, { token: crypto.randomUUID(), ip: flooder });
    statuses.push(res.status);
    if (i < 30) equal(failMessage(res, 401), raisedInSql.invalidApiKey);
    else equal(res.headers.get("x-ratelimit-limit"), "30");
  }
  deepStrictEqual(statuses, [...Array(30).fill(401), ...Array(10).fill(429)]);
  // The same refused key again, from the same address: still the address's budget.
  equal((await call("find-spell", {}, { token: crypto.randomUUID(), ip: flooder })).status, 429);
  // A key that resolves keeps its own budget of 120, from anywhere.
  const valid = await call("find-spell", { id: 1 }, { token: apiKey, ip: flooder });
  equal(successData(valid).id, 1);
  equal(valid.headers.get("x-ratelimit-limit"), "120");
  const fresh = await makeApiKey(user);
  equal(successData(await call("find-spell", { id: 1 }, { token: fresh.apiKey })).id, 1);
});

test("valid API keys never spend their address's budget, however many share it", async () => {
  const address = randomIp();
  const keys: string[] = [];
  for (let i = 0; i < 5; i++) {
    const account = await makeUser();
    keys.push(...await createApiKeys(adminSql, account.user_id, 8));
  }
  for (const key of keys) {
    const res = await call("find-spell", { id: 1 }, { token: key, ip: address });
    equal(successData(res).id, 1);
    equal(res.headers.get("x-ratelimit-limit"), "120");
  }
  const anonymous = await call("find-spell", {}, { ip: address });
  equal(anonymous.headers.get("x-ratelimit-remaining"), "29");
});

test("a refused API key is refused again with the same message, counted per address and told that budget", async () => {
  const key = crypto.randomUUID();
  const ip = randomIp();
  for (let i = 0; i < 3; i++) {
    const res = await call("find-spell", {}, { token: key, ip });
    equal(failMessage(res, 401), raisedInSql.invalidApiKey);
    equal(res.headers.get("x-ratelimit-limit"), "30");
    equal(res.headers.get("x-ratelimit-remaining"), String(29 - i));
  }
  const other = await call("find-spell", {}, { ip });
  equal(other.headers.get("x-ratelimit-remaining"), "26", "three keyed calls spent the address");
});

test("the catalogued API-key and grant refusals are the ones the SQL openers raise", async () => {
  const migrations = new URL("../supabase/migrations/", import.meta.url);
  let sql = "";
  for await (const entry of Deno.readDir(migrations)) {
    sql += await Deno.readTextFile(new URL(entry.name, migrations));
  }
  for (const message of Object.values(raisedInSql)) {
    ok(sql.includes(`'${message}'`), message);
  }
});

// A small POST's transaction opens while its budget is checked (rate_limit/verdict.ts): a write
// sends its statement only once the budget allows it, and a refusal is the answer.
test("a write refused by the rate budget answers 429 and writes nothing", async () => {
  const gm = await makeUser({ tier: 1 });
  const token = await freshToken(gm);
  const limit = 240; // the jwt bucket (rate_limit/buckets.ts)
  await withinOneMinute(20_000);
  for (let sent = 0; sent < limit; sent += 20) {
    const batch = Array.from(
      { length: Math.min(20, limit - sent) },
      () => call("find-spell", { id: 1 }, { token }),
    );
    for (const res of await Promise.all(batch)) equal(res.status, 200);
  }
  const refused = await call("create-campaign", { name: "Over budget" }, { token });
  match(failMessage(refused, 429), /^Rate limit exceeded/);
  equal(refused.headers.get("x-ratelimit-remaining"), "0");
  const again = await call("create-campaign", { name: "Over budget" }, { token });
  equal(again.status, 429);
  const read = await call("find-spell", { id: 1 }, { token });
  equal(read.status, 429);
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.campaign where user_id = ${gm.user_id}`;
  equal(row?.n, 0);
  // Another token of the same account has its own budget, and its write lands.
  successData(
    await call("create-campaign", { name: "Within budget" }, {
      token: gm.access_token,
    }),
  );
});

// Issue 38, item 8: the apikey header carries the project's key, never a user's or the bot's.

test("the apikey header alone carries only the project's key: a user token or the bot's secret there is refused", async () => {
  const refusal = "Invalid token: the apikey header carries only the project's key; send a " +
    "token or API key as Authorization: Bearer <token>";
  const user = await makeUser();
  equal(
    failMessage(await call("find-api-client", {}, { headers: { apikey: user.access_token } }), 401),
    refusal,
  );
  const moderation = Deno.env.get("CONTENT_UPDATE_SECRET")!;
  const asBot = {
    discord_msg_id: "1",
    discord_user_id: "2",
    discord_user_name: "bot",
    state: "UPVOTE",
  };
  equal(
    failMessage(
      await call("update-content-update", asBot, { headers: { apikey: moderation } }),
      401,
    ),
    refusal,
  );
  const { apiKey } = await makeApiKey(user);
  equal(
    failMessage(await call("find-spell", { id: 1 }, { headers: { apikey: apiKey } }), 401),
    refusal,
  );
  // The same credentials as a bearer, and the project's key in apikey, are accepted as before.
  equal(successData(await call("find-api-client", {}, { token: user.access_token })).length, 1);
  ok(successData(await call("find-spell", { id: 1 }, { headers: { apikey: await anonKey() } })));
});

test("an API key's read records when the key was last used, though the read may not write", async () => {
  const user = await makeUser();
  const { clientId, apiKey } = await makeApiKey(user);
  equal(successData(await call("find-spell", { id: 1 }, { token: apiKey })).id, 1);
  const [client] = await adminSql<{ last_used_at: Date | null }[]>`
    select last_used_at from public.api_client where id = ${clientId}`;
  ok(client?.last_used_at, "last_used_at is set by the read");
});
