/**
 * Fault: the rate limiter's shared store (Redis) goes away and comes back. A throwaway
 * redis-server on a random port is killed and restarted; the machine's Redis is never touched.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { createAccount } from "../scripts/support/accounts.ts";
import { waitFor } from "../scripts/support/free_port.ts";
import { type Answer, fetchFrom, post, randomIp, withinOneMinute } from "./support/http.ts";
import { RedisServer } from "./support/redis_server.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { UpstashStandIn } from "../scripts/support/upstash_stand_in.ts";
import { defaultTestDatabase, realPostgresUrl, testDatabase } from "./support/test_database.ts";

/**
 * A per-IP budget of 30 spent a few seconds ago is still (nearly) spent: refused, or, when a
 * minute boundary passed meanwhile and the sliding window weighs the old minute a little less,
 * admitted with a remaining count near 0. A fresh window would say 29.
 */
function assertStillSpent(res: Answer): void {
  if (res.status === 429) return;
  const remaining = Number(res.headers.get("x-ratelimit-remaining"));
  ok(
    remaining < 10,
    `HTTP ${res.status} with ${remaining} remaining: the spent budget was forgotten`,
  );
}

/** The limiter retries the store this long after a failure (STORE_RETRY_MS in rate_limit.ts). */
const STORE_RETRY_MS = 5_000;

Deno.test("rate limiter: a lost Redis falls back to an in-process window, then the shared one returns", async () => {
  const redis = await RedisServer.start();
  const database = await defaultTestDatabase();
  const prefix = `fault-${crypto.randomUUID()}`;
  const server = await ServerProcess.start({
    ...database.env,
    REDIS_URL: redis.url,
    RATE_LIMIT_PREFIX: prefix,
  });
  try {
    const sql = await database.connect();
    const account = await createAccount(sql).finally(() => sql.end());
    const find = (ip = randomIp()) =>
      post(server.functionsUrl, "find-api-client", {}, { token: account.token, ip });
    const warnings = (event: string) =>
      server.logLines().filter((l) => l.event === event && l.level === "warn");
    equal(warnings("rate_limit_not_shared").length, 0, "a shared store is configured");

    // With the store up, the JWT's window lives in Redis.
    for (let i = 1; i <= 3; i++) {
      const res = await find();
      equal(res.body.status, "success");
      equal(res.headers.get("x-ratelimit-remaining"), String(240 - i));
    }
    ok((await redis.keys(`${prefix}:*`)).length > 0, "the shared window keys are in Redis");

    // Store gone: requests are still served, promptly, and the outage is logged once.
    await redis.kill();
    const outageStarted = Date.now();
    let calls = 0;
    while (Date.now() - outageStarted < STORE_RETRY_MS + 1_500) {
      const res = await find();
      calls++;
      equal(res.status, 200);
      equal(res.body.status, "success");
      ok(res.ms < 1_500, `a call during the outage answered in ${Math.round(res.ms)} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
    ok(calls >= 10);
    equal(warnings("rate_limit_store_unreachable").length, 1, "the outage is logged once");

    // The fallback window still limits: one IP without credentials gets 30, then a 429.
    await withinOneMinute(15_000);
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      statuses.push((await post(server.functionsUrl, "find-api-client", {}, { ip })).status);
    }
    deepStrictEqual(statuses.slice(0, 30), Array(30).fill(401));
    equal(statuses[30], 429, "the in-process window refuses the 31st call");

    // Store back on the same port: after the retry interval the shared window is used again.
    await redis.restart();
    equal((await redis.keys(`${prefix}:*`)).length, 0, "the restarted Redis starts empty");
    await waitFor(
      "the limiter to use Redis again",
      async () => {
        equal((await find()).body.status, "success");
        return (await redis.keys(`${prefix}:*`)).length > 0;
      },
      STORE_RETRY_MS + 5_000,
      250,
    );
    equal(warnings("rate_limit_store_recovered").length, 1, "the recovery is logged");
    // The restarted store's window for that IP is empty, but the budget it spent during the outage
    // still counts: the returning store does not hand out a second one.
    assertStillSpent(await post(server.functionsUrl, "find-api-client", {}, { ip }));
    // A caller the outage never saw is counted in the shared window again.
    equal((await post(server.functionsUrl, "find-api-client", {}, { ip: randomIp() })).status, 401);
  } finally {
    await server.stop();
    await redis.kill();
    await database.cleanup();
  }
});

Deno.test("rate limiter: without a shared store, the start says once that budgets are per process", async () => {
  const database = await defaultTestDatabase();
  const server = await ServerProcess.start({ ...database.env });
  try {
    const lines = server.logLines().filter((l) => l.event === "rate_limit_not_shared");
    equal(lines.length, 1, server.output.slice(0, 2000));
    equal(lines[0]!.level, "warn");
    ok(/N processes allow N times each limit/.test(String(lines[0]!.message)));
    ok(/restart starts every window afresh/.test(String(lines[0]!.message)));
  } finally {
    await server.stop();
    await database.cleanup();
  }
});

Deno.test("rate limiter through Upstash's REST format: exact budgets, and slow, failing or absent answers fall back promptly", async () => {
  const redis = await RedisServer.start();
  const upstash = UpstashStandIn.start(redis.url);
  const database = await defaultTestDatabase();
  const prefix = `fault-${crypto.randomUUID()}`;
  const server = await ServerProcess.start({
    ...database.env,
    ...upstash.env,
    RATE_LIMIT_PREFIX: prefix,
  });
  try {
    const sql = await database.connect();
    // The prompt calls below are each a caller's first, so each asks the store: a caller's later
    // calls may be answered from requests its instance leased before.
    const [account, ...faultCallers] = await Promise.all(
      [0, 1, 2, 3].map(() => createAccount(sql)),
    ).finally(() => sql.end());
    const find = (ip = randomIp()) =>
      post(server.functionsUrl, "find-api-client", {}, { token: account!.token, ip });
    const warnings = (event: string) =>
      server.logLines().filter((l) => l.event === event && l.level === "warn");
    const prompt = async (what: string) => {
      const caller = faultCallers.pop()!;
      const res = await post(server.functionsUrl, "find-api-client", {}, {
        token: caller.token,
        ip: randomIp(),
      });
      equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
      equal(res.body.status, "success");
      ok(res.ms < 1_500, `${what}: answered in ${Math.round(res.ms)} ms`);
    };
    const recovered = async (times: number) => {
      await waitFor(
        "the limiter to use the store again",
        async () => {
          equal((await find()).body.status, "success");
          return warnings("rate_limit_store_recovered").length >= times;
        },
        STORE_RETRY_MS + 5_000,
        250,
      );
    };
    equal(warnings("rate_limit_not_shared").length, 0, "the REST store counts as shared");

    // Served through the REST format: the JWT's window lives in the Redis behind it, leased a few
    // requests at a time (leases of 1, 2, 4, 8 and 8 for these 20, each spent within its two seconds).
    for (let i = 1; i <= 20; i++) {
      const res = await find();
      equal(res.body.status, "success");
      equal(res.headers.get("x-ratelimit-limit"), "240");
      equal(res.headers.get("x-ratelimit-remaining"), String(240 - i));
    }
    const restCalls = [...upstash.received.values()].reduce((a, b) => a + b, 0);
    ok(restCalls >= 1, "the limiter called the REST endpoints (/pipeline with auto-pipelining)");
    ok(restCalls <= 12, `${restCalls} calls to the store for 20 requests`);
    equal(upstash.globalLockScripts.size, 0, [...upstash.globalLockScripts].join("; "));
    ok((await redis.keys(`${prefix}:*`)).length > 0, "the window keys are in Redis");
    // The per-IP budget is exact: 30, then 429 with Retry-After.
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      statuses.push((await post(server.functionsUrl, "find-api-client", {}, { ip })).status);
    }
    deepStrictEqual(statuses.slice(0, 30), Array(30).fill(401));
    equal(statuses[30], 429);

    // Slow answers: the call does not wait for them.
    upstash.fault = { kind: "slow", delayMs: 4_000 };
    await prompt("store answering slowly");
    equal(warnings("rate_limit_store_unreachable").length, 1);
    upstash.fault = { kind: "none" };
    await recovered(1);

    // Error answers (HTTP 500 with an `{error}` body): no retries that hold the call.
    upstash.fault = { kind: "error", status: 500, message: "ERR internal" };
    await prompt("store answering errors");
    equal(warnings("rate_limit_store_unreachable").length, 2);
    upstash.fault = { kind: "none" };
    await recovered(2);

    // Unreachable: the in-process window limits, and its count holds once the store returns.
    await upstash.down();
    await prompt("store unreachable");
    const outageIp = randomIp();
    for (let i = 0; i < 30; i++) {
      equal((await post(server.functionsUrl, "find-api-client", {}, { ip: outageIp })).status, 401);
    }
    equal((await post(server.functionsUrl, "find-api-client", {}, { ip: outageIp })).status, 429);
    upstash.resume();
    await recovered(3);
    // The budget spent during the outage still counts.
    assertStillSpent(await post(server.functionsUrl, "find-api-client", {}, { ip: outageIp }));
  } finally {
    await server.stop();
    await upstash.close();
    await redis.kill();
    await database.cleanup();
  }
});

Deno.test({
  name: "rate limiter: with the store down, two workers together allow one budget, not two",
  ignore: realPostgresUrl() === null, // several workers need a real Postgres
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const redis = await RedisServer.start();
  const database = await testDatabase("postgres");
  const server = await ServerProcess.start({
    ...database.env,
    REDIS_URL: redis.url,
    WORKERS: "2",
  });
  try {
    ok(server.output.includes("RATE_LIMIT_INSTANCES=2"), "the start says each worker's share");
    await redis.kill();
    // Each call on a new connection, so the kernel spreads them over both workers.
    await withinOneMinute(15_000);
    const ip = randomIp();
    const workers = new Set<string>();
    let admitted = 0;
    for (let i = 0; i < 80; i++) {
      const res = await fetchFrom(ip)(`${server.functionsUrl}/find-api-client`, {
        method: "POST",
        headers: { connection: "close" },
        body: "{}",
      });
      await res.body?.cancel();
      workers.add(res.headers.get("x-server-worker") ?? "");
      if (res.status !== 429) admitted++;
    }
    equal(workers.size, 2, "both workers answered");
    ok(admitted <= 30, `${admitted} calls admitted: more than the address's budget of 30`);
    ok(admitted >= 15, `${admitted} calls admitted: less than one worker's share`);
  } finally {
    server.kill("SIGTERM");
    await server.status;
    await database.cleanup();
  }
});
