import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { createClient } from "@supabase/supabase-js";
import { SignJWT } from "jose";
import {
  adminSql,
  call,
  failMessage,
  freshToken,
  makeApiKey,
  makeUser,
  randomIp,
  server,
  signClaims,
  successData,
  test,
} from "./_harness.ts";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";

const MALFORMED_TOKEN =
  "Invalid token format. Expected a 36-character API key (UUID) or a JWT. See the API documentation.";
const signed = signClaims;

function assertRateHeaders(headers: Headers, limit: number): void {
  equal(headers.get("x-ratelimit-limit"), String(limit));
  match(headers.get("x-ratelimit-remaining") ?? "", /^\d+$/);
  match(headers.get("x-ratelimit-reset") ?? "", /^\d+$/);
}

test("OPTIONS answers the CORS preflight supabase-js sends", async () => {
  const res = await fetch(`${server.functionsUrl}/find-api-client`, { method: "OPTIONS" });
  await res.body?.cancel();
  equal(res.status, 204);
  const allowed = res.headers.get("access-control-allow-headers") ?? "";
  for (const h of ["authorization", "x-client-info", "apikey", "content-type"]) {
    ok(allowed.includes(h), `preflight allows ${h}`);
  }
});

test("a method other than POST is refused with 405 and a JSend fail", async () => {
  const res = await fetch(`${server.functionsUrl}/find-api-client`);
  equal(res.status, 405);
  const body = await res.json();
  equal(body.status, "fail");
  match(body.data.message, /POST/);
});

test("no credential is the signed-out caller and counts against the per-IP budget", async () => {
  const res = await call("find-api-client", {});
  match(failMessage(res, 401), /^Signed out: sign in/);
  assertRateHeaders(res.headers, 30);
});

test("a malformed bearer gets 401 with the documented message", async () => {
  for (const header of ["Bearer short", "Token abc", `Bearer ${"x".repeat(35)}`]) {
    const res = await call("find-api-client", {}, { headers: { authorization: header } });
    equal(failMessage(res, 401), MALFORMED_TOKEN);
  }
});

test("a JWT with a bad signature, expired, or without a user gets 401", async () => {
  const user = await makeUser();
  const now = Math.floor(Date.now() / 1000);
  const base = { sub: user.user_id, role: "authenticated", aud: "authenticated" };
  const forged = await new SignJWT({ ...base, exp: now + 600 })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .sign(new TextEncoder().encode("x".repeat(40)));
  match(failMessage(await call("find-api-client", {}, { token: forged }), 401), /signature/);
  const expired = await signed({ ...base, exp: now - 10 });
  match(failMessage(await call("find-api-client", {}, { token: expired }), 401), /expired/);
  const anon = await signed({ role: "anon", exp: now + 600 });
  match(
    failMessage(await call("find-api-client", {}, { token: anon }), 401),
    /^Signed out: sign in/,
  );
  const roleless = await signed({
    sub: user.user_id,
    aud: "authenticated",
    iat: now,
    exp: now + 600,
  });
  match(failMessage(await call("find-api-client", {}, { token: roleless }), 401), /no user/);
});

test("a JWT that worked stops working when it expires: a verified token is not trusted longer", async () => {
  const user = await makeUser();
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + 2;
  const token = await signed({
    sub: user.user_id,
    role: "authenticated",
    aud: "authenticated",
    iat,
    exp,
  });
  successData(await call("find-api-client", {}, { token }));
  successData(await call("find-api-client", {}, { token }));
  // jose's rule: valid while exp is after the current second.
  await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
  match(failMessage(await call("find-api-client", {}, { token }), 401), /expired/);
});

test("a token that claims an API client is refused: only the server mints those", async () => {
  const user = await makeUser();
  const now = Math.floor(Date.now() / 1000);
  const token = await signed({
    sub: user.user_id,
    role: "authenticated",
    exp: now + 600,
    api_client_id: 1,
  });
  equal(
    failMessage(await call("find-api-client", {}, { token }), 401),
    "Invalid token: the token carries no user",
  );
});

test("the JWT of a deleted account gets 401", async () => {
  const user = await makeUser();
  successData(await call("find-api-client", {}, { token: user.access_token }));
  await adminSql`delete from auth.users where id = ${user.user_id}`;
  match(
    failMessage(await call("find-api-client", {}, { token: user.access_token }), 401),
    /User not found/,
  );
});

test("an unknown API key gets 401 Invalid API Key, with its address's budget (unrecognized auth)", async () => {
  const res = await call("find-spell", {}, { token: crypto.randomUUID() });
  equal(failMessage(res, 401), "Invalid API Key");
  assertRateHeaders(res.headers, 30);
});

test("a revoked client's key gets 401 Invalid API Key, no client found", async () => {
  const user = await makeUser();
  const { clientId, apiKey } = await makeApiKey(user);
  successData(await call("find-spell", {}, { token: apiKey }));
  successData(await call("delete-api-client", { id: clientId }, { token: user.access_token }));
  equal(
    failMessage(await call("find-spell", {}, { token: apiKey }), 401),
    "Invalid API Key, no client found",
  );
});

test("a body over the 1 MiB cap gets 413, declared or streamed", async () => {
  const user = await makeUser();
  const big = JSON.stringify({ name: "x".repeat(1024 * 1024) });
  const declared = await call("create-api-client", undefined, {
    token: user.access_token,
    raw: big,
  });
  match(failMessage(declared, 413), /too large/);
  assertRateHeaders(declared.headers, 240);
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < 20) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const streamed = await call("create-api-client", undefined, {
    token: await freshToken(user),
    raw: stream,
  });
  match(failMessage(streamed, 413), /too large/);
});

test("a body that is not JSON gets 400 Invalid JSON body", async () => {
  const user = await makeUser();
  const res = await call("create-api-client", undefined, {
    token: user.access_token,
    raw: "{nope",
  });
  equal(failMessage(res, 400), "Invalid JSON body");
});

test("an invalid field gets HTTP 200 fail naming the field", async () => {
  const user = await makeUser();
  const res = await call("delete-api-client", { id: "seven" }, { token: user.access_token });
  match(failMessage(res), /^Invalid value for id:/);
  equal(res.body.data.field, "id");
});

test("the per-IP budget allows 30 requests a minute, then 429 with Retry-After", async () => {
  const ip = randomIp();
  const statuses: number[] = [];
  let last: Awaited<ReturnType<typeof call>> | undefined;
  for (let i = 0; i < 31; i++) {
    last = await call("find-api-client", {}, { ip });
    statuses.push(last.status);
  }
  deepStrictEqual(statuses.slice(0, 30), Array(30).fill(401));
  equal(last?.status, 429);
  match(failMessage(last!, 429), /^Rate limit exceeded\. Try again in \d+s\.$/);
  match(last!.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
  equal(last!.headers.get("x-ratelimit-remaining"), "0");
  assertRateHeaders(last!.headers, 30);
});

test("an API key has its own budget of 120, and failed requests count", async () => {
  const bogus = crypto.randomUUID();
  const results = await Promise.all(
    Array.from({ length: 121 }, () => call("find-spell", {}, { token: bogus })),
  );
  const statuses = results.map((r) => r.status).sort();
  equal(statuses.filter((s) => s === 401).length, 120);
  equal(statuses.filter((s) => s === 429).length, 1);
  // Another key is unaffected.
  equal(
    failMessage(await call("find-spell", {}, { token: crypto.randomUUID() }), 401),
    "Invalid API Key",
  );
});

test("successful responses carry the JWT bucket's rate-limit headers", async () => {
  const user = await makeUser();
  const first = await call("find-api-client", {}, { token: user.access_token });
  const second = await call("find-api-client", {}, { token: user.access_token });
  assertRateHeaders(first.headers, 240);
  equal(
    Number(first.headers.get("x-ratelimit-remaining")) - 1,
    Number(second.headers.get("x-ratelimit-remaining")),
  );
  match(first.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
});

test("supabase-js functions.invoke reaches a function with the user's token", async () => {
  const user = await makeUser();
  const client = createClient(server.appUrl, "local-anon-key", {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { Authorization: `Bearer ${user.access_token}` } },
  });
  const { data, error } = await client.functions.invoke("create-api-client", {
    body: { name: "from supabase-js" },
  });
  equal(error, null);
  equal(data.status, "success");
  equal(data.data.name, "from supabase-js");
});

test("a user cannot raise their own supporter tier or admin flag, even directly in SQL", async () => {
  const user = await makeUser();
  const claims = JSON.stringify({ sub: user.user_id, role: "authenticated" });
  for (const column of ["supporter_tier = 4", "is_admin = true"]) {
    const refused = await adminSql.begin(async (tx) => {
      await tx`select set_config('role', ${REQUEST_ROLES.authenticated}, true),
                      set_config('request.jwt.claims', ${claims}, true)`;
      await tx.unsafe(`update public.public_user set ${column}`);
    }).then(() => null, (e) => e.code);
    equal(refused, "42501", `${column} is refused`);
  }
  const [row] =
    await adminSql`select supporter_tier, is_admin from public.public_user where user_id = ${user.user_id}`;
  deepStrictEqual({ ...row }, { supporter_tier: 0, is_admin: false });
});

test("a GAME-MASTER group member passes the tier-2 cap on new homebrew sources", async () => {
  const gm = await makeUser({ tier: 4 });
  const member = await makeUser();
  const refused = await call("create-content-source", { name: "Before joining" }, {
    token: member.access_token,
  });
  equal(refused.body.data.required_tier, 2);
  // The GAME-MASTER tier opened the group already; the member joins it.
  await adminSql`insert into public.gm_group_member (gm_user_id, user_id)
                 values (${gm.user_id}, ${member.user_id})`;
  const created = successData(
    await call("create-content-source", { name: "After joining" }, { token: member.access_token }),
  );
  equal(created.user_id, member.user_id);
});
