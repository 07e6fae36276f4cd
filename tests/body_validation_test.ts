/** Bodies at the edges of their schemas: each a fail naming the field, never stored or a 500. */
import { deepStrictEqual, equal, match } from "node:assert/strict";
import { call, failMessage, makeUser, successData, test } from "./_harness.ts";

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

test("half of a surrogate pair is refused, naming the field, in text and in JSON alike", async () => {
  const user = await makeUser();
  const token = user.access_token;
  for (
    const [raw, field] of [
      [`{"name":"a\\ud800b"}`, "name"],
      [`{"name":"Half","notes":{"pages":["\\udfff"]}}`, "notes.pages.0"],
    ] as const
  ) {
    const res = await call("create-character", {}, { token, raw });
    equal(
      failMessage(res),
      `Invalid value for ${field}: text cannot contain half of a surrogate pair (\\uD800-\\uDFFF alone)`,
    );
  }
  // A whole pair is one character, kept as sent.
  const whole = await call("create-character", {}, { token, raw: `{"name":"\\ud83d\\ude00"}` });
  equal(successData(whole).name, "\u{1F600}");
});

test("a __proto__ key is refused, naming where it is, rather than dropped", async () => {
  const user = await makeUser();
  const res = await call("create-character", {}, {
    token: user.access_token,
    raw: `{"name":"Proto","details":{"__proto__":{"x":1},"kept":true}}`,
  });
  const escaped = await call("create-character", {}, {
    token: user.access_token,
    raw: `{"name":"Proto","details":{"\\u005f\\u005f\\u0070roto__":{"x":1}}}`,
  });
  equal(failMessage(escaped), failMessage(res));
  equal(
    failMessage(res),
    "Invalid value for details.__proto__: __proto__ cannot be a key (objects drop it)",
  );
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
