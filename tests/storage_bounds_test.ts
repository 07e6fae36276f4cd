/**
 * What one account can make the project keep is bounded over time: the answers kept for its
 * Idempotency-Keys, and its content proposals, each by a number the database holds once
 * (supabase/migrations/20261128000200_bound_account_storage.sql).
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import {
  adminSql,
  call,
  failMessage,
  makeApiKey,
  makeUser,
  successData,
  test,
} from "./_harness.ts";

/** A limit as the database states it. */
async function limit(name: string): Promise<number> {
  const [row] = await adminSql.unsafe<{ value: string }[]>(`select private.${name}() as value`);
  return Number(row!.value);
}

/** Random text of `bytes` characters that does not compress (as notes typed over weeks). */
function randomText(bytes: number): string {
  const raw = new Uint8Array(Math.ceil(bytes / 2));
  for (let at = 0; at < raw.length; at += 65_536) {
    crypto.getRandomValues(raw.subarray(at, at + 65_536));
  }
  return Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("").slice(0, bytes);
}

test("an account keeps at most 20 MB of Idempotency-Key answers: then a new key is refused, a replay and an unkeyed write go on", async () => {
  const maxBytes = await limit("idempotent_answers_max_bytes");
  equal(maxBytes, 20 * 1024 * 1024);
  const user = await makeUser({ tier: 2 });
  const created = successData(
    await call("create-character", { name: "Notes" }, { token: user.access_token }),
  );
  const write = (key: string | null, text: string) =>
    call("update-character", { id: created.id, notes: { text } }, {
      token: user.access_token,
      headers: key === null ? {} : { "Idempotency-Key": key },
    });
  const notes = randomText(800 * 1024);
  const first = await write("first", notes);
  equal(first.body.status, "success");
  let accepted = 1;
  let refused = null;
  for (let i = 0; i < 40 && refused === null; i++) {
    const answer = await write(crypto.randomUUID(), `${i} ${notes}`);
    if (answer.body.status === "success") accepted++;
    else refused = answer;
  }
  ok(refused, `all ${accepted} keyed writes of 800 KB were kept`);
  equal(
    failMessage(refused),
    "Idempotency-Key limit reached: an account may keep at most 20 MB of answers for 24 hours; " +
      "send this write without an Idempotency-Key, or later",
  );
  const [kept] = await adminSql<{ bytes: number; rows: number }[]>`
    select coalesce(sum(octet_length(answer::text)), 0)::bigint::float8 as bytes,
           count(*)::int as rows
    from private.idempotent_request where scope = ${`user:${user.user_id}`}`;
  ok(kept!.bytes <= maxBytes, `${kept!.bytes} bytes kept`);
  ok(kept!.bytes > maxBytes - 2 * 820 * 1024, "the bound is reached, not a far smaller one");
  equal(kept!.rows, accepted);
  // The refused write did nothing: the notes are the last accepted write's.
  const [row] = await adminSql<{ text: string }[]>`
    select notes ->> 'text' as text from public.character where id = ${created.id}`;
  equal(row!.text, `${accepted - 2} ${notes}`);
  const replay = await write("first", notes);
  deepStrictEqual(replay.body, first.body);
  equal(replay.headers.get("idempotent-replayed"), "true");
  equal((await write(null, "without a key")).body.status, "success");
});

test("an account proposes at most 30 changes in 24 hours, each at most 256 KB", async () => {
  const perDay = await limit("content_updates_per_day");
  const maxBytes = await limit("content_update_max_bytes");
  deepStrictEqual([perDay, maxBytes], [30, 256 * 1024]);
  const user = await makeUser();
  const [source] = await adminSql<{ id: number }[]>`
    insert into public.content_source (name, is_published)
    values (${`Source ${crypto.randomUUID()}`}, true) returning id`;
  const propose = (description: string, metaData: Record<string, unknown> = {}) =>
    call("create-content-update", {
      type: "spell",
      action: "CREATE",
      content_source_id: source!.id,
      data: { name: "Proposed", rank: 1, description, meta_data: metaData },
    }, { token: user.access_token });
  equal(
    failMessage(await propose("large", { notes: randomText(maxBytes) })),
    "Content update too large: its data may be at most 256 KB",
  );
  for (let i = 0; i < perDay; i++) {
    equal((await propose(randomText(50 * 1024))).body.status, "success", `proposal ${i + 1}`);
  }
  equal(
    failMessage(await propose("one more")),
    "Content update limit reached: an account may propose at most 30 changes in 24 hours; " +
      "try again later",
  );
  const [kept] = await adminSql<{ rows: number }[]>`
    select count(*)::int as rows from public.content_update where user_id = ${user.user_id}`;
  equal(kept!.rows, perDay);
});

test("an account's writes add at most 50 MB a day; saving a row again at its size still goes on", async () => {
  const maxBytes = await limit("account_growth_max_bytes");
  equal(maxBytes, 50 * 1024 * 1024);
  const user = await makeUser({ tier: 2 });
  const notes = randomText(900 * 1024);
  const create = (i: number) =>
    call("create-character", { name: `Hoard ${i}`, notes: { text: notes } }, {
      token: user.access_token,
    });
  const created: number[] = [];
  let refused = null;
  for (let i = 0; i < 80 && refused === null; i++) {
    const answer = await create(i);
    if (answer.body.status === "success") created.push(successData(answer).id);
    else refused = answer;
  }
  ok(refused, `all ${created.length} characters of 900 KB were stored`);
  equal(
    failMessage(refused),
    "Storage limit reached: an account's writes may add at most 50 MB a day; try again tomorrow (UTC)",
  );
  const [stored] = await adminSql<{ bytes: number }[]>`
    select coalesce(sum(octet_length(to_jsonb(c)::text)), 0)::float8 as bytes
    from public.character c where c.user_id = ${user.user_id}`;
  ok(stored!.bytes <= maxBytes, `${stored!.bytes} bytes stored`);
  ok(stored!.bytes > maxBytes - 2 * 950 * 1024, "the bound is reached, not a far smaller one");
  // A save that adds nothing (the web client sends the whole character) is still taken.
  const again = await call("update-character", {
    id: created[0],
    notes: { text: notes.replace(/^./, "x") },
  }, { token: user.access_token });
  equal(again.body.status, "success");
});

/** What the account's writes have added today, as the growth bound counts it. */
async function grownToday(userId: string): Promise<number> {
  const [row] = await adminSql<{ bytes: number }[]>`
    select coalesce(sum(bytes), 0)::float8 as bytes from private.account_growth
    where user_id = ${userId} and day = (now() at time zone 'utc')::date`;
  return row!.bytes;
}

test("an API client's writes to a granted character count against the client's owner, not the character's", async () => {
  const player = await makeUser();
  const developer = await makeUser();
  const { id } = successData(
    await call("create-character", { name: "Shared" }, { token: player.access_token }),
  );
  const { clientId, apiKey } = await makeApiKey(developer);
  successData(
    await call("grant-character-access", {
      client_id: clientId,
      user_id: developer.user_id,
      character_id: id,
    }, { token: player.access_token }),
  );
  const playerBefore = await grownToday(player.user_id);
  const developerBefore = await grownToday(developer.user_id);
  successData(
    await call("update-character", {
      id,
      inventory: {
        coins: { cp: 0, sp: 0, gp: 0, pp: 0 },
        items: [{ id: "x", notes: randomText(500 * 1024) }],
      },
    }, {
      token: apiKey,
    }),
  );
  // Otherwise someone else's client could spend the player's day on one granted character and
  // leave every other write of the player refused.
  equal(await grownToday(player.user_id), playerBefore);
  ok(await grownToday(developer.user_id) >= developerBefore + 500 * 1024);
});
