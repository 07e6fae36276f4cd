/**
 * interface.md's Limits, exactly: in a minute no caller is served more than its bucket, whichever
 * instance answers, and none is refused while its bucket has room; the headers state the bucket.
 * With an Upstash store (the hosted emulation's, or the stand-in on REDIS_URL) it is taken down
 * first, so the database keeps the count for every function instance.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import {
  anonKey,
  call,
  type CallResult,
  limiterStore,
  makeApiKey,
  makeUser,
  randomIp,
  test,
} from "./_harness.ts";
import { withinOneMinute } from "./support/http.ts";

/** Every find function: on the hosted platform each is an instance of its own. */
const FINDS = [
  "find-ability-block",
  "find-ancestry",
  "find-api-client",
  "find-archetype",
  "find-background",
  "find-campaign",
  "find-character",
  "find-character-access",
  "find-class",
  "find-class-archetype",
  "find-content-source",
  "find-content-update",
  "find-creature",
  "find-encounter",
  "find-hazard",
  "find-item",
  "find-language",
  "find-spell",
  "find-trait",
  "find-versatile-heritage",
];

/** How long an instance counts in the database alone after Upstash failed (`verdict.ts`). */
const STORE_RETRY_MS = 5_000;

/**
 * Runs `fn` with the limiter's Upstash store unreachable, when there is one; then waits until each
 * find function's instance counts in Upstash again, so that later tests find it as they expect.
 */
async function withStoreDown<T>(fn: () => Promise<T>): Promise<T> {
  if (!limiterStore) return await fn();
  await limiterStore.down();
  try {
    return await fn();
  } finally {
    limiterStore.resume();
    await new Promise((resolve) => setTimeout(resolve, STORE_RETRY_MS + 500));
    await Promise.all(FINDS.map((fn) => call(fn, { id: 1 })));
  }
}

/**
 * `calls` calls round-robin over the find functions, one after another, each over a connection of
 * its own, once every function has answered a call of another caller (hosted, an instance starts
 * on its first call).
 */
async function roundRobin(
  calls: number,
  options: { token: string; ip?: string },
): Promise<CallResult[]> {
  await Promise.all(FINDS.map((fn) => call(fn, { id: 1 })));
  const answers: CallResult[] = [];
  for (let i = 0; i < calls; i++) {
    answers.push(await call(FINDS[i % FINDS.length]!, { id: 1 }, options));
  }
  return answers;
}

function assertExactly(answers: CallResult[], budget: number): void {
  const statuses = answers.map((a) => a.status);
  const admitted = statuses.filter((s) => s !== 429).length;
  equal(admitted, budget, `served ${admitted} of a budget of ${budget}: ${statuses.join(" ")}`);
  equal(statuses.indexOf(429), budget, "no refusal while the bucket had room");
  deepStrictEqual(
    [...new Set(answers.map((a) => a.headers.get("x-ratelimit-limit")))],
    [String(budget)],
    "every answer states the bucket",
  );
}

test("an API key is served exactly its 120 a minute across every find function's instance", async () => {
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  await withinOneMinute(40_000);
  const answers = await withStoreDown(() => roundRobin(130, { token: apiKey }));
  assertExactly(answers, 120);
});

test("a signed-out caller is served exactly its address's 30 a minute across every find function", async () => {
  const key = await anonKey();
  await withinOneMinute(20_000);
  const answers = await withStoreDown(() => roundRobin(40, { token: key, ip: randomIp() }));
  assertExactly(answers, 30);
});

test("an unknown API key is served its address's 30 a minute, and every answer states that bucket", async () => {
  await withinOneMinute(20_000);
  const options = { token: crypto.randomUUID(), ip: randomIp() };
  const answers: CallResult[] = [];
  // Functions that take API keys: on one that does not, a key counts only against itself.
  for (let i = 0; i < 40; i++) {
    answers.push(await call(i % 2 ? "find-spell" : "find-trait", { id: 1 }, options));
  }
  equal(answers[0]?.status, 401);
  assertExactly(answers, 30);
  deepStrictEqual(
    answers.slice(0, 30).map((a) => a.headers.get("x-ratelimit-remaining")),
    Array.from({ length: 30 }, (_, i) => String(29 - i)),
  );
});
