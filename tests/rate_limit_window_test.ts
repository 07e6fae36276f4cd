/**
 * One sliding window: @upstash/ratelimit's. The database's window (`private.take_rate_limit`) and
 * the in-process one (`memory_window.ts`) restate its arithmetic, so the same requests at the same
 * instants must get the same verdicts, remaining counts and resets from all three; the library
 * runs on real Redis (through the Upstash stand-in) when REDIS_URL is set.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { adminSql, test } from "./_harness.ts";
import { MemoryWindow } from "../supabase/functions/_shared/rate_limit/memory_window.ts";
import { UpstashStandIn } from "../scripts/support/upstash_stand_in.ts";

const TOKENS = 7;
const WINDOW_MS = 10_000;

interface Verdict {
  success: boolean;
  remaining: number;
  reset: number;
}

/**
 * Request instants over five windows, a few at a time, as a busy caller makes them: bursts that
 * fill a window, quiet stretches in which the previous window weighs less, a window skipped.
 */
function instants(start: number): number[] {
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const times: number[] = [];
  let at = start;
  while (at < start + 5 * WINDOW_MS) {
    const burst = 1 + Math.floor(random() * 4);
    for (let i = 0; i < burst; i++) times.push(at);
    at += Math.floor(random() * 1_700);
    if (at >= start + 2 * WINDOW_MS && at < start + 3 * WINDOW_MS) at += WINDOW_MS; // skipped
  }
  return times;
}

/** Runs `fn` with Date.now() answering `at`: the library reads the clock itself. */
async function at<T>(instant: number, fn: () => Promise<T>): Promise<T> {
  const now = Date.now;
  Date.now = () => instant;
  try {
    return await fn();
  } finally {
    Date.now = now;
  }
}

test("the database's and the in-process sliding windows give @upstash/ratelimit's verdicts", async () => {
  // A window start well ahead of the clock, so no key of the library's outlives the test.
  const start = Math.ceil((Date.now() + 3_600_000) / WINDOW_MS) * WINDOW_MS + 123;
  const times = instants(start);
  const key = `window-tie-${crypto.randomUUID()}`;

  const memory = new MemoryWindow(TOKENS, WINDOW_MS);
  const inMemory: Verdict[] = [];
  const inDatabase: Verdict[] = [];
  for (const now of times) {
    const { success, remaining, reset } = await memory.limit(key, now);
    inMemory.push({ success, remaining, reset });
    const [row] = await adminSql<{ remaining: number; reset_ms: number }[]>`
      select remaining, reset_ms from private.take_rate_limit(${key}::text, ${TOKENS}::integer,
        ${WINDOW_MS}::integer, ${now}::bigint)`;
    inDatabase.push({
      success: row!.remaining >= 0,
      remaining: Math.max(0, row!.remaining),
      reset: Number(row!.reset_ms),
    });
  }
  deepStrictEqual(inDatabase, inMemory);
  await adminSql`delete from private.rate_limit_hits where key = ${key}`;

  const redisUrl = Deno.env.get("REDIS_URL");
  if (!redisUrl) return;
  const upstash = UpstashStandIn.start(redisUrl);
  try {
    const limiter = new Ratelimit({
      redis: new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false }),
      limiter: Ratelimit.slidingWindow(TOKENS, `${WINDOW_MS / 1000} s`),
      prefix: key,
      timeout: 0,
      ephemeralCache: false,
      analytics: false,
      enableTelemetry: false,
    });
    const byLibrary: Verdict[] = [];
    for (const now of times) {
      const { success, remaining, reset } = await at(now, () => limiter.limit("caller"));
      byLibrary.push({ success, remaining, reset });
    }
    deepStrictEqual(inDatabase, byLibrary);
  } finally {
    await upstash.close();
  }
});

test("the database's window drops two rows of past windows with each row it adds", async () => {
  const start = Math.ceil((Date.now() + 7_200_000) / WINDOW_MS) * WINDOW_MS;
  const rolledBack = new Error("rolled back");
  // In a transaction rolled back at the end: the other tests' windows are left as they were.
  await adminSql.begin(async (tx) => {
    await tx`delete from private.rate_limit_hits`;
    const take = (key: string, now: number) =>
      tx`select private.take_rate_limit(${key}::text, ${TOKENS}::integer, ${WINDOW_MS}::integer,
        ${now}::bigint)`;
    const rows = async () =>
      (await tx<{ n: number }[]>`select count(*)::int as n from private.rate_limit_hits`)[0]!.n;
    for (const key of ["a", "b", "c"]) await take(key, start);
    // One window later they are the previous window, which weighs on the sliding one: kept.
    await take("d", start + WINDOW_MS);
    equal(await rows(), 4);
    // Two windows later the first three are past: the new row takes two of them with it.
    await take("e", start + 2 * WINDOW_MS);
    equal(await rows(), 3);
    // A request its key's row in this window counts already adds no row, and drops none.
    await take("e", start + 2 * WINDOW_MS + 1);
    equal(await rows(), 3);
    throw rolledBack;
  }).catch((e) => {
    if (e !== rolledBack) throw e;
  });
});

test("a write's budget check admits only a request every bucket's count admitted", async () => {
  const start = Math.ceil((Date.now() + 10_800_000) / WINDOW_MS) * WINDOW_MS;
  const check = async (requestId: string) =>
    await adminSql`select private.assert_within_budget(${requestId}::uuid)`.then(
      () => "admitted",
      (e: { code?: string }) => e.code,
    );
  const take = (key: string, requestId: string) =>
    adminSql`select private.take_rate_limit(${key}::text, 1::integer, ${WINDOW_MS}::integer,
      ${start}::bigint, ${requestId}::uuid)`;
  const [first, second, uncounted] = [
    crypto.randomUUID(),
    crypto.randomUUID(),
    crypto.randomUUID(),
  ];
  const [user, address] = [`check-user-${first}`, `check-ip-${first}`];
  // The first request fits both buckets; the second fits its address's but not its user's.
  await take(user, first);
  await take(address, first);
  await take(user, second);
  await take(`check-ip-${second}`, second);
  equal(await check(first), "admitted");
  equal(await check(second), "PT429");
  // A request whose count never completed is not admitted either.
  equal(await check(uncounted), "PT503");
});
