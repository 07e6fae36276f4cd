/**
 * Safe retries (Idempotency-Key): a repeated write gets the first answer again without the work
 * being done twice, per caller, for 24 hours; the key is kept in Postgres, in the write's own
 * transaction.
 */
import { deepStrictEqual, equal, match, notEqual, ok, rejects } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  fetchFrom,
  localOnly,
  makeApiKey,
  makeUser,
  randomIp,
  server,
  successData,
  test,
} from "./_harness.ts";
import { createRpgClient } from "../shared/client.ts";

const withKey = (key: string) => ({ "Idempotency-Key": key });

async function characterCount(userId: string): Promise<number> {
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.character where user_id = ${userId}`;
  return row?.n ?? 0;
}

test("a repeated create gets the first answer again, marked as a replay, and creates once", async () => {
  const user = await makeUser();
  const key = crypto.randomUUID();
  // The first answer is lost: the server finished, the client never read the body.
  const lost = await fetchFrom(randomIp())(`${server.functionsUrl}/create-character`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${user.access_token}`,
      "content-type": "application/json",
      ...withKey(key),
    },
    body: JSON.stringify({ name: "Once" }),
  });
  await lost.body?.cancel();
  equal(lost.status, 200);
  const again = await call("create-character", { name: "Once" }, {
    token: user.access_token,
    headers: withKey(key),
  });
  equal(again.headers.get("idempotent-replayed"), "true");
  const replayed = successData(again);
  equal(replayed.name, "Once");
  equal(await characterCount(user.user_id), 1);
  const third = await call("create-character", { name: "Once" }, {
    token: user.access_token,
    headers: withKey(key),
  });
  deepStrictEqual(successData(third), replayed);
  // Without the header, the same body is a new character.
  successData(await call("create-character", { name: "Once" }, { token: user.access_token }));
  equal(await characterCount(user.user_id), 2);
});

test("the same key with another body is refused, naming the header, and writes nothing", async () => {
  const user = await makeUser();
  const key = crypto.randomUUID();
  successData(
    await call("create-character", { name: "First" }, {
      token: user.access_token,
      headers: withKey(key),
    }),
  );
  const other = await call("create-character", { name: "Second" }, {
    token: user.access_token,
    headers: withKey(key),
  });
  match(failMessage(other, 422), /^Idempotency-Key was already used with another request/);
  equal(other.body.data.field, "Idempotency-Key");
  equal(await characterCount(user.user_id), 1);
});

test("an update refused as data spends no key: the same request writes once it is allowed", async () => {
  const owner = await makeUser();
  const other = await makeUser();
  const character = successData(
    await call("create-character", { name: "Mine" }, { token: owner.access_token }),
  );
  const key = crypto.randomUUID();
  const update = () =>
    call("update-character", { id: character.id, name: "Renamed" }, {
      token: other.access_token,
      headers: withKey(key),
    });
  const refused = await update();
  deepStrictEqual(successData(refused), { __forbidden: true, reason: "NOT_VISIBLE" });
  // Admins may write any character: the same key now does the work, and is no replay.
  await adminSql`update public.public_user set is_admin = true where user_id = ${other.user_id}`;
  const written = await update();
  equal(written.headers.get("idempotent-replayed"), null);
  equal(successData(written)[0].name, "Renamed");
  equal((await update()).headers.get("idempotent-replayed"), "true");
});

test("reset-campaign-key repeated with one key draws one new key", async () => {
  const gm = await makeUser({ tier: 1 });
  const campaign = successData(
    await call("create-campaign", { name: "Once" }, { token: gm.access_token }),
  );
  const key = crypto.randomUUID();
  const reset = () =>
    call("reset-campaign-key", { id: campaign.id }, {
      token: gm.access_token,
      headers: withKey(key),
    });
  const first = successData(await reset());
  const again = await reset();
  equal(again.headers.get("idempotent-replayed"), "true");
  deepStrictEqual(successData(again), first);
  const [stored] = successData(
    await call("find-campaign", { id: campaign.id }, { token: gm.access_token }),
  );
  equal(stored.join_key, first.join_key);
});

test("twenty concurrent requests with one key create one character; the cap is untouched", async () => {
  const user = await makeUser();
  const key = crypto.randomUUID();
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      call("create-character", { name: "Racer" }, {
        token: user.access_token,
        headers: withKey(key),
      })),
  );
  const ids = new Set(answers.map((a) => successData(a).id));
  equal(ids.size, 1, "every answer names the one character");
  equal(answers.filter((a) => a.headers.get("idempotent-replayed") === "true").length, 19);
  equal(await characterCount(user.user_id), 1);
  // A tier-0 account may hold 6: the other five can still be made.
  for (let i = 0; i < 5; i++) {
    successData(
      await call("create-character", { name: `More ${i}` }, { token: user.access_token }),
    );
  }
  equal(await characterCount(user.user_id), 6);
});

test("a key older than 24 hours is forgotten: the request is done again", async () => {
  const user = await makeUser();
  const key = crypto.randomUUID();
  const first = successData(
    await call("create-character", { name: "Old" }, {
      token: user.access_token,
      headers: withKey(key),
    }),
  );
  await adminSql`update private.idempotent_request set created_at = now() - interval '25 hours'
                 where key = ${key}`;
  const later = await call("create-character", { name: "Old" }, {
    token: user.access_token,
    headers: withKey(key),
  });
  equal(later.headers.get("idempotent-replayed"), null);
  notEqual(successData(later).id, first.id);
  equal(await characterCount(user.user_id), 2);
});

test("keys are per caller: two users, and a user and their API key, never share an answer", async () => {
  const [alice, bob] = [await makeUser(), await makeUser()];
  const key = "shared-key";
  const a = successData(
    await call("create-character", { name: "Alice's" }, {
      token: alice.access_token,
      headers: withKey(key),
    }),
  );
  const b = await call("create-character", { name: "Alice's" }, {
    token: bob.access_token,
    headers: withKey(key),
  });
  equal(b.headers.get("idempotent-replayed"), null);
  notEqual(successData(b).id, a.id);
  equal(successData(b).user_id, bob.user_id);

  // Alice's API key (granted her character) updates it under the same key string: its own scope.
  const { clientId, apiKey } = await makeApiKey(alice);
  successData(
    await call("grant-character-access", {
      client_id: clientId,
      user_id: alice.user_id,
      character_id: a.id,
    }, { token: alice.access_token }),
  );
  const viaKey = await call("update-character", { id: a.id, level: 2 }, {
    token: apiKey,
    headers: withKey(key),
  });
  equal(viaKey.headers.get("idempotent-replayed"), null);
  equal(successData(viaKey)[0].level, 2);
});

test("a malformed key is a 400; create-api-client refuses the header; reads ignore it", async () => {
  const user = await makeUser();
  for (const bad of ["", "x".repeat(256), "naïve"]) {
    const res = await call("create-character", { name: "Bad key" }, {
      token: user.access_token,
      headers: withKey(bad),
    });
    match(failMessage(res, 400), /^Invalid Idempotency-Key header/, JSON.stringify(bad));
  }
  match(
    failMessage(
      await call("create-api-client", { name: "c" }, {
        token: user.access_token,
        headers: withKey("k"),
      }),
      400,
    ),
    /create-api-client does not take Idempotency-Key/,
  );
  equal(
    successData(
      await call("find-spell", { id: 1 }, { token: user.access_token, headers: withKey("k") }),
    )
      .id,
    1,
  );
  equal(await characterCount(user.user_id), 0);
});

test("browsers may send the header and read the replay marker (CORS)", async () => {
  const res = await fetch(`${server.functionsUrl}/create-character`, { method: "OPTIONS" });
  await res.body?.cancel();
  match(res.headers.get("access-control-allow-headers") ?? "", /idempotency-key/);
  match(res.headers.get("access-control-expose-headers") ?? "", /Idempotent-Replayed/);
});

test("the typed client sends the key through supabase-js's functions.invoke", async () => {
  const user = await makeUser();
  const client = createRpgClient({ url: server.appUrl, token: user.access_token });
  const key = crypto.randomUUID();
  const first = await client.call("create-character", { name: "Typed" }, { idempotencyKey: key });
  const again = await client.call("create-character", { name: "Typed" }, { idempotencyKey: key });
  equal(again.headers.get("idempotent-replayed"), "true");
  deepStrictEqual(again.body, first.body);
  equal(await characterCount(user.user_id), 1);
});

test("a write answered after its commit (a proposal sent to the bot) is kept and replayed too", async () => {
  const user = await makeUser();
  const key = crypto.randomUUID();
  const body = {
    type: "spell",
    action: "CREATE",
    content_source_id: 1,
    data: { name: `Retried ${key.slice(0, 8)}`, rank: 1 },
  };
  const first = successData(
    await call("create-content-update", body, { token: user.access_token, headers: withKey(key) }),
  );
  const again = await call("create-content-update", body, {
    token: user.access_token,
    headers: withKey(key),
  });
  equal(again.headers.get("idempotent-replayed"), "true");
  deepStrictEqual(successData(again), first);
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from public.content_update where user_id = ${user.user_id}`;
  equal(row?.n, 1);
});

test("delete-user with a key answers its success, though its caller is gone when the answer is kept", async () => {
  const user = await makeUser();
  const res = await call("delete-user", {}, {
    token: user.access_token,
    headers: withKey(crypto.randomUUID()),
  });
  equal(res.body.status, "success", JSON.stringify(res.body));
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from auth.users where id = ${user.user_id}`;
  equal(row?.n, 0);
});

test("a function's sub-path cannot pass for another endpoint: no API key is ever kept", async () => {
  const user = await makeUser();
  const res = await fetchFrom(randomIp())(
    `${server.functionsUrl}/create-api-client/create-anything`,
    {
      method: "POST",
      headers: {
        authorization: `Bearer ${user.access_token}`,
        ...withKey(crypto.randomUUID()),
      },
      body: JSON.stringify({ name: "Sub-path" }),
    },
  );
  await res.body?.cancel();
  // Hosted, the platform passes sub-paths to the function (refused, 400); locally, not routed.
  ok([400, 404].includes(res.status), `HTTP ${res.status}`);
  const [kept] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from private.idempotent_request where answer::text like '%api_key%'`;
  equal(kept?.n, 0);
});

// The answer is kept by a statement the COMMIT follows without waiting (endpoint.ts): when that
// statement fails, the COMMIT ends a failed transaction, and the write must not be reported done.
localOnly(
  "a keyed write whose answer cannot be kept answers an error and writes nothing",
  async () => {
    const user = await makeUser();
    // Put back exactly as the migrations left it: later migrations add the storage bound to it.
    const [original] = await adminSql<{ definition: string }[]>`
      select pg_get_functiondef(
        'private.remember_idempotent_answer(text, smallint, jsonb)'::regprocedure) as definition`;
    await adminSql`
    create or replace function private.remember_idempotent_answer(
      p_key text, p_status smallint, p_answer jsonb)
    returns void language plpgsql as $$ begin raise exception 'nowhere to keep it'; end $$`;
    try {
      const res = await call("create-character", { name: "Unkept" }, {
        token: user.access_token,
        headers: withKey(crypto.randomUUID()),
      });
      notEqual(res.body?.status, "success", JSON.stringify(res.body));
      equal(await characterCount(user.user_id), 0);
    } finally {
      await adminSql.unsafe(original!.definition);
    }
    successData(
      await call("create-character", { name: "Kept" }, {
        token: user.access_token,
        headers: withKey(crypto.randomUUID()),
      }),
    );
  },
);

// A repeat's work is sent behind its claim without waiting (endpoint.ts), and a claim that finds
// the earlier request ends the transaction while that work may still be running: whatever it sends
// afterwards must be refused, never run on the connection another request has taken since.
test("a statement sent after its transaction has ended is refused", async () => {
  const { inTransaction } = await import("../supabase/functions/_shared/db/transaction.ts");
  let late: Promise<unknown> | null = null;
  await rejects(
    inTransaction((tx) => tx`select 1`, (tx) => {
      late = new Promise((resolve) => setTimeout(resolve, 50)).then(() => tx`select 1`);
      late.catch(() => {});
      return Promise.reject(new Error("the claim found an earlier request"));
    }),
    /the claim found an earlier request/,
  );
  await rejects(late!, /The transaction has ended/);
});

// With the COMMIT sent ahead, a statement written only after an answer would reach the connection
// after that COMMIT and run outside the transaction (as the login role, on a connection that may be
// another's by then): it is refused. One written before the first await is part of it.
test("with its COMMIT sent ahead, a statement written after an answer is refused", async () => {
  const { inTransaction } = await import("../supabase/functions/_shared/db/transaction.ts");
  await rejects(
    inTransaction((tx) => tx`select 1`, async (tx) => {
      await tx`select 1`;
      return await tx`select 2 as two`;
    }, { commitAhead: true }),
    /COMMIT or ROLLBACK was sent/,
  );
  const { value } = await inTransaction(
    (tx) => tx`select 1`,
    async (tx) => await tx`select 2 as two`,
    { commitAhead: true },
  );
  deepStrictEqual([...value], [{ two: 2 }]);
});

// The opener makes a read's transaction read-only, after it has noted an API key's use.
test("a read's transaction refuses a write its handler attempts", async () => {
  const { asCaller } = await import("../supabase/functions/_shared/db/as_caller.ts");
  await rejects(
    asCaller(
      { kind: "anon" },
      (tx) => tx`insert into public.content_source (name) values ('written by a read')`,
      { readOnly: true },
    ),
    (error: { code?: string }) => error.code === "25006",
  );
});

test("a request's transaction plans without JIT, whatever the server's setting", async () => {
  const { asCaller } = await import("../supabase/functions/_shared/db/as_caller.ts");
  for (const options of [{}, { readOnly: true, genericPlans: true }]) {
    const { value } = await asCaller(
      { kind: "anon" },
      (tx) => tx<{ jit: string }[]>`select current_setting('jit') as jit`,
      options,
    );
    equal(value[0]?.jit, "off", JSON.stringify(options));
  }
});

test("statements run in the order they are written, whatever order they are awaited in", async () => {
  const { inTransaction } = await import("../supabase/functions/_shared/db/transaction.ts");
  const { value } = await inTransaction((tx) => tx`select 1`, async (tx) => {
    const setting = tx`select set_config('test.order', 'written first', true)`;
    const seen = tx<{ seen: string }[]>`select current_setting('test.order', true) as seen`;
    const [row] = await seen;
    await setting;
    return row?.seen;
  }, { commitAhead: true });
  equal(value, "written first");
});

test("a failed statement is the transaction's error, awaited or not, and outranks what it caused", async () => {
  const { inTransaction } = await import("../supabase/functions/_shared/db/transaction.ts");
  // The statements after it are refused (25P02) for it; its own error is the answer.
  await rejects(
    inTransaction((tx) => tx`select 1`, async (tx) => {
      tx`select 1 / 0`;
      return await tx`select 2`;
    }, { commitAhead: true }),
    (e: { code?: string }) => e.code === "22012",
  );
  // Never awaited, it still fails the transaction: its COMMIT was answered with a rollback.
  await rejects(
    inTransaction((tx) => tx`select 1`, (tx) => {
      tx`select 1 / 0`;
      return Promise.resolve("answered");
    }, { commitAhead: true }),
    (e: { code?: string }) => e.code === "22012",
  );
});

test("a handler that fails before its first await commits nothing it wrote", async () => {
  const { inTransaction } = await import("../supabase/functions/_shared/db/transaction.ts");
  const requestId = crypto.randomUUID();
  await rejects(
    // deno-lint-ignore require-await
    inTransaction((tx) => tx`select 1`, async (tx) => {
      // A write the pool's login role may make: a rate-limit count that keeps its verdict.
      tx`select private.take_rate_limit(${`early-${requestId}`}::text, 5::integer, 60000::integer,
                                        request_id => ${requestId}::uuid)`;
      throw new Error("refused before any answer");
    }, { commitAhead: true }),
    /refused before any answer/,
  );
  const [row] = await adminSql<{ n: number }[]>`
    select count(*)::int as n from private.rate_limit_verdicts where request_id = ${requestId}`;
  equal(row?.n, 0);
});
