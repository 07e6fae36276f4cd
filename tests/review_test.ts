/**
 * Regressions from a review of the API against the contract, as a third-party tool author would
 * call it: each test pins one fix.
 */
import { equal, match } from "node:assert/strict";
import { call, failMessage, makeUser, test } from "./_harness.ts";

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
