import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
} from "./_harness.ts";

test("create-api-client returns the key once and stores only its hash", async () => {
  const user = await makeUser();
  const created = successData(
    await call("create-api-client", { name: " My tool ", description: "reads spells" }, {
      token: user.access_token,
    }),
  );
  equal(created.name, "My tool");
  equal(created.description, "reads spells");
  match(created.api_key, /^[0-9a-f-]{36}$/);
  const stored =
    await adminSql`select key_hash from private.api_key where client_id = ${created.id}`;
  equal(stored.length, 1);
  ok(stored[0]?.key_hash !== created.api_key);
  const listed = successData(await call("find-api-client", {}, { token: user.access_token }));
  deepStrictEqual(listed.map((c: { id: number }) => c.id), [created.id]);
  equal("api_key" in listed[0], false);
});

test("create-api-client requires a name", async () => {
  const user = await makeUser();
  equal(
    failMessage(await call("create-api-client", {}, { token: user.access_token })),
    "Missing required field: name",
  );
});

test("API clients are managed with a JWT only, never with an API key", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const res = await call("find-api-client", {}, { token: apiKey });
  match(failMessage(res, 401), /API keys cannot call this endpoint/);
});

test("find-api-client lists only the caller's clients", async () => {
  const alice = await makeUser();
  const bob = await makeUser();
  await makeApiKey(alice);
  const listed = successData(await call("find-api-client", {}, { token: bob.access_token }));
  deepStrictEqual(listed, []);
});

test("find-api-client takes no filter: a field sent to it is refused, not ignored", async () => {
  const user = await makeUser();
  const res = await call("find-api-client", { id: 1 }, { token: user.access_token });
  equal(failMessage(res), "Unknown field: id");
});

test("delete-api-client revokes a client: its key stops working on the next request", async () => {
  const user = await makeUser();
  const { clientId, apiKey } = await makeApiKey(user);
  const other = await makeApiKey(user);
  equal(
    successData(await call("delete-api-client", { id: clientId }, { token: user.access_token })),
    true,
  );
  const [revoked] = await adminSql`select client_id from private.api_key where client_id is null
    and key_hash = encode(sha256(convert_to(${apiKey}, 'UTF8')), 'hex')`;
  ok(revoked, "the key's hash stays, with no client");
  const stranger = await makeUser();
  equal(
    failMessage(
      await call("delete-api-client", { id: other.clientId }, { token: stranger.access_token }),
    ),
    "API client not found",
  );
});
