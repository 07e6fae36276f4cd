import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
  type TestUser,
} from "./_harness.ts";
import { REQUEST_ROLES } from "../supabase/functions/_shared/db/request_roles.ts";
import { callSignedOut } from "./support/signed_out.ts";

/** Inserts a content source directly (no signed-in user: the owner named is kept). */
async function makeSource(
  owner: TestUser | null,
  options: { published?: boolean } = {},
): Promise<number> {
  const [row] = await adminSql<{ id: number }[]>`
    insert into public.content_source (name, user_id, is_published)
    values (${`Book ${crypto.randomUUID()}`}, ${owner?.user_id ?? null}, ${
    options.published ?? true
  })
    returning id`;
  return row!.id;
}

test("get-content-versions returns id and updated_at of the visible sources only", async () => {
  const reader = await makeUser();
  const stranger = await makeUser();
  const official = await makeSource(null);
  const own = await makeSource(reader, { published: false });
  const hidden = await makeSource(stranger, { published: false });
  const versions = successData(
    await call("get-content-versions", { ids: [hidden, own, official, 2 ** 40] }, {
      token: reader.access_token,
    }),
  );
  deepStrictEqual(versions.map((v: { id: number }) => v.id), [official, own]);
  for (const v of versions) deepStrictEqual(Object.keys(v).sort(), ["id", "updated_at"]);
  const { apiKey } = await makeApiKey(reader);
  deepStrictEqual(
    successData(
      await call("get-content-versions", { ids: [official, own, hidden] }, { token: apiKey }),
    ),
    versions,
  );
});

test("get-content-versions reflects an edit to the source's content made one call earlier", async () => {
  const owner = await makeUser();
  const source = await makeSource(owner, { published: false });
  const [trait] = await adminSql<{ id: number }[]>`
    insert into public.trait (name, content_source_id) values ('Fire', ${source}) returning id`;
  const probe = async () =>
    successData(
      await call("get-content-versions", { ids: [source] }, { token: owner.access_token }),
    )[0].updated_at;
  const before = await probe();
  equal(await probe(), before, "nothing changed, nothing moves");
  // The edit is made as the owner, through the row-level policies, in its own transaction.
  const claims = JSON.stringify({ sub: owner.user_id, role: "authenticated" });
  await adminSql.begin(async (tx) => {
    await tx`select set_config('role', ${REQUEST_ROLES.authenticated}, true),
                    set_config('request.jwt.claims', ${claims}, true)`;
    await tx`update public.trait set description = 'Burns' where id = ${trait!.id}`;
  });
  const after = await probe();
  ok(Date.parse(after) > Date.parse(before), `${after} is later than ${before}`);
});

test("get-content-versions refuses a missing, empty, oversized or non-integer id list", async () => {
  const user = await makeUser();
  const cases: [unknown, RegExp][] = [
    [{}, /^Missing required field: ids$/],
    [{ ids: [] }, /^Invalid value for ids: ids needs at least one id/],
    [
      { ids: Array.from({ length: 501 }, (_, i) => i + 1) },
      /^Invalid value for ids: ids takes at most 500/,
    ],
    [{ ids: [1.5] }, /^Invalid value for ids\.0/],
    [{ ids: ["one"] }, /^Invalid value for ids\.0/],
  ];
  for (const [body, expected] of cases) {
    match(
      failMessage(await call("get-content-versions", body, { token: user.access_token })),
      expected,
    );
  }
  const accepted = await call("get-content-versions", {
    ids: Array.from({ length: 500 }, (_, i) => i + 1),
  }, {
    token: user.access_token,
  });
  ok(Array.isArray(successData(accepted)));
  successData(await callSignedOut("get-content-versions", { ids: [1] }));
});

test("get-content-source-stats counts the users subscribed to a visible source", async () => {
  const owner = await makeUser();
  const source = await makeSource(owner);
  const other = await makeSource(null);
  const subscribe = async (ids: number[]) => {
    const user = await makeUser();
    const list = ids.map((id) => ({ source_id: id, source_name: "Book", added_at: "2026-01-01" }));
    successData(
      await call("update-user", { subscribed_content_sources: list }, { token: user.access_token }),
    );
  };
  await subscribe([source]);
  await subscribe([other, source]);
  await subscribe([other]);
  await subscribe([source + other + 1000]);
  const stats = successData(
    await call("get-content-source-stats", { content_source_id: source }, {
      token: owner.access_token,
    }),
  );
  equal(stats.count, 2);
  equal(stats.source.id, source);
  equal(stats.source.user_id, owner.user_id);
  equal("keys" in stats.source, false);
  const { apiKey } = await makeApiKey(owner);
  equal(
    successData(
      await call("get-content-source-stats", { content_source_id: other }, { token: apiKey }),
    )
      .count,
    2,
  );
});

test("get-content-source-stats refuses a source the caller cannot see, and bad ids", async () => {
  const owner = await makeUser();
  const stranger = await makeUser();
  const hidden = await makeSource(owner, { published: false });
  const token = stranger.access_token;
  equal(
    failMessage(await call("get-content-source-stats", { content_source_id: hidden }, { token })),
    "Content source not found",
  );
  equal(
    failMessage(await call("get-content-source-stats", {}, { token })),
    "Missing required field: content_source_id",
  );
  match(
    failMessage(await call("get-content-source-stats", { content_source_id: "x" }, { token })),
    /^Invalid value for content_source_id/,
  );
});

test("the subscriber count is an indexed containment query, not a scan of every profile", async () => {
  const plan = await adminSql.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    return await tx<{ "QUERY PLAN": string }[]>`explain select count(*) from public.public_user u
      where u.subscribed_content_sources @> jsonb_build_array(jsonb_build_object('source_id', 1))`;
  });
  const text = plan.map((r) => r["QUERY PLAN"]).join("\n");
  match(text, /public_user_subscribed_sources_idx/);
});
