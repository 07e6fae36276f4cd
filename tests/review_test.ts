/**
 * Regressions from a review of the API against the contract, as a third-party tool author would
 * call it: each test pins one fix.
 */
import { equal, match, ok } from "node:assert/strict";
import { call, failMessage, makeUser, server, test } from "./_harness.ts";

test("a wrong id type names what find endpoints accept: an id or an array of ids", async () => {
  const user = await makeUser();
  const token = user.access_token;
  equal(
    failMessage(await call("find-spell", { id: "7" }, { token })),
    "Invalid value for id: expected number or array, received string",
  );
  equal(
    failMessage(await call("find-item", { id: null }, { token })),
    "Invalid value for id: expected number or array, received null",
  );
  equal(
    failMessage(await call("find-trait", { id: 1.5 }, { token })),
    "Invalid value for id: expected int or array, received number",
  );
  // An array that holds a bad element points at that element.
  match(
    failMessage(await call("find-class", { id: [2, 1.5] }, { token })),
    /^Invalid value for id\.1: /,
  );
});

test("create-spell names -1 as an accepted id when the id has the wrong type", async () => {
  const user = await makeUser();
  const res = await call("create-spell", { id: "new", name: "X", rank: 1 }, {
    token: user.access_token,
  });
  equal(failMessage(res), "Invalid value for id: expected number or -1, received string");
});

test("a method other than POST still carries the rate-limit headers and counts", async () => {
  const ip = "10.250.0.1";
  const first = await fetch(`${server.functionsUrl}/find-spell`, {
    headers: { "x-forwarded-for": ip },
  });
  equal(first.status, 405);
  await first.body?.cancel();
  equal(first.headers.get("X-RateLimit-Limit"), "30");
  const remaining = Number(first.headers.get("X-RateLimit-Remaining"));
  ok(Number.isInteger(remaining) && remaining < 30);
  ok(Number.isInteger(Number(first.headers.get("X-RateLimit-Reset"))));
  const second = await fetch(`${server.functionsUrl}/find-spell`, {
    method: "PUT",
    headers: { "x-forwarded-for": ip },
  });
  await second.body?.cancel();
  equal(Number(second.headers.get("X-RateLimit-Remaining")), remaining - 1);
});
