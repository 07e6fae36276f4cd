/** Trust, round 3: the small holes an outsider found (each failed before its fix). */
import { deepStrictEqual, equal, match, rejects } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  randomIp,
  successData,
  test,
} from "./_harness.ts";
import { withinOneMinute } from "./support/http.ts";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";

test("a number past a double's range is refused, naming the field, never stored as null", async () => {
  const user = await makeUser();
  for (const huge of ["1" + "0".repeat(400), "1e400", "-1e999"]) {
    const res = await call("create-character", {}, {
      token: user.access_token,
      raw: `{"name":"Big","notes":{"page":{"count":${huge}}}}`,
    });
    equal(failMessage(res), "Invalid value for notes.page.count: the number is too large");
    equal(res.body.data.field, "notes.page.count");
  }
  // A long number that is a double still goes through.
  const fine = await call("create-character", {}, {
    token: user.access_token,
    raw: `{"name":"Fine","notes":{"count":1e300}}`,
  });
  equal(successData(fine).notes.count, 1e300);
});

test("open-ai-request refuses a field it does not take, such as base_url", async () => {
  const user = await makeUser({ tier: 1 });
  const res = await call("open-ai-request", {
    content: "hello",
    base_url: "http://127.0.0.1:1/v1",
  }, { token: user.access_token });
  match(failMessage(res), /^Unknown field: base_url\. Accepted: content, model$/);
});

test("an item's price cannot be negative", async () => {
  const user = await makeUser({ tier: 2 });
  const source = successData(
    await call("create-content-source", { name: `Prices ${crypto.randomUUID()}` }, {
      token: user.access_token,
    }),
  );
  const res = await call("create-item", {
    name: "Cursed coin",
    level: 1,
    price: { gp: -5 },
    content_source_id: source.id,
  }, { token: user.access_token });
  equal(failMessage(res), "Invalid value for price.gp: a price cannot be negative");
});

test("an unknown field's fail names the accepted fields and the nearest one", async () => {
  const user = await makeUser();
  const res = await call("find-spell", { nmae: "x" }, { token: user.access_token });
  const message = failMessage(res);
  match(message, /^Unknown field: nmae\. Accepted: .*\bname\b.*; did you mean name\?$/);
  equal(res.body.data.accepted.includes("content_sources"), true);
});

test("a time-zone offset Postgres cannot take is a fail naming the field, not a 500", async () => {
  const user = await makeUser();
  const find = await call("find-content-update", {
    created: { to: "2026-01-01T00:00:00+16:00" },
  }, { token: user.access_token });
  equal(
    failMessage(find),
    "Invalid value for created.to: the time-zone offset must be between -15:59 and +15:59",
  );
  const character = successData(
    await call("create-character", { name: "Zoned" }, { token: user.access_token }),
  );
  const update = await call("update-character", {
    id: character.id,
    name: "Rezoned",
    expected_updated_at: "2026-01-01T00:00:00-16:30",
  }, { token: user.access_token });
  match(failMessage(update), /^Invalid value for expected_updated_at: the time-zone offset/);
  // The widest offset Postgres takes still works.
  deepStrictEqual(
    successData(
      await call("find-content-update", {
        created: { to: "2026-01-01T00:00:00+15:59" },
      }, { token: user.access_token }),
    ).filter(() => false),
    [],
  );
});

test("a signed-in user cannot write uploaded_file rows directly (the REST layer's role)", async () => {
  const user = await makeUser({ tier: 2 });
  const attempt = adminSql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${
      JSON.stringify({ sub: user.user_id, role: "authenticated" })
    }, true)`;
    await tx.unsafe(`set local role ${REQUEST_ROLES.authenticated}`);
    await tx`insert into public.uploaded_file (bucket, path, content_type, byte_size)
      values ('portraits', ${`${user.user_id}/${"a".repeat(64)}.png`}, 'image/png', 10)`;
  });
  await rejects(attempt, /permission denied for table uploaded_file/);
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.uploaded_file where user_id = ${user.user_id}`;
  equal(row?.n, 0);
});

test("a key the server issued goes on from an address that made-up keys have flooded", async () => {
  const user = await makeUser();
  await withinOneMinute(20_000);
  const flooder = randomIp();
  for (let i = 0; i < 31; i++) {
    await call("find-spell", {}, { token: crypto.randomUUID(), ip: flooder });
  }
  equal((await call("find-spell", {}, { token: crypto.randomUUID(), ip: flooder })).status, 429);
  // A key this server (or instance) has never seen, from the flooded address.
  const { apiKey } = await makeApiKey(user);
  equal(successData(await call("find-spell", { id: 1 }, { token: apiKey, ip: flooder })).id, 1);
  // The same shape with one digit changed is refused without the database, on its address.
  const last = apiKey.at(-1) === "0" ? "1" : "0";
  const forged = apiKey.slice(0, -1) + last;
  equal(
    failMessage(await call("find-spell", { id: 1 }, { token: forged, ip: randomIp() }), 401),
    "Invalid API Key",
  );
  equal((await call("find-spell", { id: 1 }, { token: forged, ip: flooder })).status, 429);
});
