import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  freshToken,
  makeApiKey,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";

const NO_ACCESS = "You do not have access to this character";

async function makeCharacter(user: TestUser, name: string): Promise<number> {
  const created = successData(
    await call("create-character", { name }, { token: await freshToken(user) }),
  );
  return created.id;
}

async function grant(owner: TestUser, clientOwner: TestUser, clientId: number, id: number) {
  return successData(
    await call("grant-character-access", {
      client_id: clientId,
      user_id: clientOwner.user_id,
      character_id: id,
    }, { token: owner.access_token }),
  );
}

test("an API key without a grant gets 403 even on its owner's own character", async () => {
  const owner = await makeUser();
  const id = await makeCharacter(owner, "Own");
  const { apiKey } = await makeApiKey(owner);
  equal(failMessage(await call("find-character", { id }, { token: apiKey }), 403), NO_ACCESS);
  equal(
    failMessage(await call("update-character", { id, level: 2 }, { token: apiKey }), 403),
    NO_ACCESS,
  );
  equal(
    failMessage(await call("create-character", { id, level: 2 }, { token: apiKey }), 403),
    NO_ACCESS,
  );
  const [row] = await adminSql<{ level: number }[]>`
    select level from public.character where id = ${id}`;
  equal(row?.level, 1);
});

test("a grant lets another user's client read and write the character as its owner", async () => {
  const owner = await makeUser();
  const developer = await makeUser();
  const id = await makeCharacter(owner, "Shared");
  const { clientId, apiKey } = await makeApiKey(developer);
  equal(failMessage(await call("find-character", { id }, { token: apiKey }), 403), NO_ACCESS);

  const stored = await grant(owner, developer, clientId, id);
  equal(stored.client_id, clientId);
  equal(stored.character_id, id);
  // Granting again is harmless and keeps the first grant's time.
  equal((await grant(owner, developer, clientId, id)).granted_at, stored.granted_at);

  const found = successData(await call("find-character", { id }, { token: apiKey }));
  equal(found.id, id);
  equal(found.user_id, owner.user_id);
  const [updated] = successData(
    await call("update-character", { id, hp_current: 17, inventory: { items: [{ n: 1 }] } }, {
      token: apiKey,
    }),
  );
  equal(updated.hp_current, 17);
  equal(updated.user_id, owner.user_id, "the write ran under the owner's policies");
  deepStrictEqual(updated.inventory, { items: [{ n: 1 }] });
  const viaCreate = successData(
    await call("create-character", { id, hero_points: 3 }, { token: apiKey }),
  );
  equal(viaCreate.hero_points, 3);
});

test("revoking a grant refuses the very next call, and only for that character", async () => {
  const owner = await makeUser();
  const developer = await makeUser();
  const a = await makeCharacter(owner, "A");
  const b = await makeCharacter(owner, "B");
  const { clientId, apiKey } = await makeApiKey(developer);
  await grant(owner, developer, clientId, a);
  await grant(owner, developer, clientId, b);
  successData(await call("find-character", { id: a }, { token: apiKey }));
  equal(
    successData(
      await call("revoke-character-access", { client_id: clientId, character_id: a }, {
        token: owner.access_token,
      }),
    ),
    true,
  );
  equal(failMessage(await call("find-character", { id: a }, { token: apiKey }), 403), NO_ACCESS);
  equal(
    failMessage(await call("update-character", { id: a, level: 3 }, { token: apiKey }), 403),
    NO_ACCESS,
  );
  equal(successData(await call("find-character", { id: b }, { token: apiKey })).id, b);
});

test("a grant for character A gives nothing on character B", async () => {
  const owner = await makeUser();
  const a = await makeCharacter(owner, "A");
  const b = await makeCharacter(owner, "B");
  const { clientId, apiKey } = await makeApiKey(owner);
  await grant(owner, owner, clientId, a);
  successData(await call("find-character", { id: a }, { token: apiKey }));
  equal(failMessage(await call("find-character", { id: b }, { token: apiKey }), 403), NO_ACCESS);
  equal(
    failMessage(await call("update-character", { id: b, level: 5 }, { token: apiKey }), 403),
    NO_ACCESS,
  );
});

test("another user's key without a grant gets 403; the JWT owner is unaffected by grants", async () => {
  const owner = await makeUser();
  const stranger = await makeUser();
  const id = await makeCharacter(owner, "Mine");
  const { apiKey } = await makeApiKey(stranger);
  equal(failMessage(await call("find-character", { id }, { token: apiKey }), 403), NO_ACCESS);
  equal(
    failMessage(await call("update-character", { id, level: 9 }, { token: apiKey }), 403),
    NO_ACCESS,
  );
  // No grant exists for any client, and the owner's own session does not need one.
  equal(successData(await call("find-character", { id }, { token: owner.access_token })).id, id);
  equal(
    successData(await call("update-character", { id, level: 9 }, { token: owner.access_token }))[0]
      .level,
    9,
  );
});

test("find-character lists only granted characters under an API key", async () => {
  const owner = await makeUser();
  const granted = await makeCharacter(owner, "Granted");
  await makeCharacter(owner, "Not granted");
  const other = await makeUser();
  const othersGranted = await makeCharacter(other, "Other's");
  const { clientId, apiKey } = await makeApiKey(owner);
  await grant(owner, owner, clientId, granted);
  await grant(other, owner, clientId, othersGranted);
  const listed = successData(await call("find-character", {}, { token: apiKey }));
  deepStrictEqual(listed.map((c: { id: number }) => c.id), [granted, othersGranted]);
  const narrowed = successData(
    await call("find-character", { user_id: owner.user_id }, { token: apiKey }),
  );
  deepStrictEqual(narrowed.map((c: { id: number }) => c.id), [granted]);
  // A list of ids answers the granted ones among them, as the other filters do.
  const notGranted = await makeCharacter(owner, "Also not granted");
  deepStrictEqual(
    successData(await call("find-character", { id: [notGranted, granted] }, { token: apiKey }))
      .map((c: { id: number }) => c.id),
    [granted],
  );
  deepStrictEqual(
    successData(await call("find-character", { id: [notGranted] }, { token: apiKey })),
    [],
  );
  // An id as a string (the web client's URL parameter) is that id, grant check included.
  equal(
    successData(await call("find-character", { id: String(granted) }, { token: apiKey })).id,
    granted,
  );
  // The JWT owner lists all of their own characters regardless of grants.
  equal(successData(await call("find-character", {}, { token: owner.access_token })).length, 3);
});

test("an API key cannot create characters or reach the grant endpoints", async () => {
  const owner = await makeUser();
  const { apiKey } = await makeApiKey(owner);
  equal(
    failMessage(await call("create-character", { name: "x" }, { token: apiKey }), 403),
    NO_ACCESS,
  );
  const id = await makeCharacter(owner, "Mine");
  for (const fn of ["grant-character-access", "find-character-access", "revoke-character-access"]) {
    const res = await call(fn, { client_id: 1, user_id: owner.user_id, character_id: id }, {
      token: apiKey,
    });
    match(failMessage(res, 401), /API keys cannot call this endpoint/);
  }
});

test("grant-character-access checks the client's owner and the character's owner", async () => {
  const owner = await makeUser();
  const developer = await makeUser();
  const stranger = await makeUser();
  const id = await makeCharacter(owner, "Guarded");
  const { clientId } = await makeApiKey(developer);
  equal(
    failMessage(
      await call("grant-character-access", {
        client_id: clientId,
        user_id: stranger.user_id,
        character_id: id,
      }, { token: owner.access_token }),
    ),
    "API client not found",
  );
  equal(
    failMessage(
      await call("grant-character-access", {
        client_id: clientId,
        user_id: developer.user_id,
        character_id: id,
      }, { token: stranger.access_token }),
    ),
    "Character not found",
  );
  equal(
    failMessage(
      await call("grant-character-access", {
        client_id: clientId,
        user_id: developer.user_id,
        character_id: id,
      }, { token: developer.access_token }),
    ),
    "Character not found",
  );
  const [count] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.character_grant where character_id = ${id}`;
  equal(count?.n, 0);
});

test("find-character-access lists the authorized clients with their names", async () => {
  const owner = await makeUser();
  const developer = await makeUser();
  await adminSql`update public.public_user set display_name = 'Dev Shop'
                 where user_id = ${developer.user_id}::uuid`;
  const id = await makeCharacter(owner, "Listed");
  const { clientId } = await makeApiKey(developer);
  equal(
    successData(
      await call("find-character-access", { character_id: id }, {
        token: owner.access_token,
      }),
    ).length,
    0,
  );
  await grant(owner, developer, clientId, id);
  const listed = successData(
    await call("find-character-access", { character_id: id }, { token: owner.access_token }),
  );
  equal(listed.length, 1);
  equal(listed[0].client_id, clientId);
  equal(listed[0].client_name, "test client");
  equal(listed[0].owner_user_id, developer.user_id);
  equal(listed[0].owner_display_name, "Dev Shop");
  ok(listed[0].granted_at);
  equal(
    failMessage(
      await call("find-character-access", { character_id: id }, {
        token: developer.access_token,
      }),
    ),
    "Character not found",
  );
  equal(
    failMessage(
      await call("revoke-character-access", { client_id: clientId, character_id: id }, {
        token: developer.access_token,
      }),
    ),
    "Character not found",
  );
  // The refused revoke was sent together with its check: it removed nothing.
  equal(
    successData(
      await call("find-character-access", { character_id: id }, { token: owner.access_token }),
    ).length,
    1,
  );
});

test("get-api-client-info shows a consent screen the client's name and owner", async () => {
  const developer = await makeUser();
  const owner = await makeUser();
  const { clientId } = await makeApiKey(developer);
  const info = successData(
    await call("get-api-client-info", { client_id: clientId, user_id: developer.user_id }, {
      token: owner.access_token,
    }),
  );
  equal(info.client_id, clientId);
  equal(info.name, "test client");
  equal(info.owner_user_id, developer.user_id);
  equal(typeof info.owner_display_name, "string");
  equal("api_key" in info, false);
  equal(
    failMessage(
      await call("get-api-client-info", { client_id: clientId, user_id: owner.user_id }, {
        token: owner.access_token,
      }),
    ),
    "API client not found",
  );
});

test("deleting an API client or a character removes its grants", async () => {
  const owner = await makeUser();
  const id = await makeCharacter(owner, "Temporary");
  const { clientId, apiKey } = await makeApiKey(owner);
  await grant(owner, owner, clientId, id);
  successData(await call("delete-api-client", { id: clientId }, { token: owner.access_token }));
  const [left] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.character_grant where client_id = ${clientId}`;
  equal(left?.n, 0);
  const second = await makeApiKey(owner);
  await grant(owner, owner, second.clientId, id);
  await adminSql`delete from public.character where id = ${id}`;
  const [gone] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.character_grant where character_id = ${id}`;
  equal(gone?.n, 0);
  equal(
    failMessage(await call("find-character", { id }, { token: apiKey }), 401),
    "Invalid API Key, no client found",
  );
});

test("no request role may call the request openers, which resolve keys and grants", async () => {
  const [row] = await adminSql<{ roles: string[] | null }[]>`
    select array_agg(r.rolname order by r.rolname) as roles
    from pg_roles r
    cross join (values ('private.begin_request(text, text)'),
                       ('private.begin_api_key_request(text, bigint)')) f(signature)
    where r.rolname in ('anon', 'authenticated', 'service_role', ${REQUEST_ROLES.anon},
                        ${REQUEST_ROLES.authenticated})
      and has_function_privilege(r.rolname, f.signature, 'execute')`;
  deepStrictEqual(row?.roles, null);
});
