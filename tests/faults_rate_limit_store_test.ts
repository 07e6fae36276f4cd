/**
 * Fault: the rate limiter's Upstash store (the stand-in, in front of a throwaway redis-server on a
 * random port) answers slowly, fails, goes away and comes back; the database counts meanwhile. The
 * machine's Redis is never touched.
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

/** The limiter retries the store this long after a failure (STORE_RETRY_MS in verdict.ts). */
const STORE_RETRY_MS = 5_000;

Deno.test("rate limiter: a lost Upstash store hands the count to the database, then Upstash returns", async () => {
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
    const account = await createAccount(sql).finally(() => sql.end());
    const find = (ip = randomIp()) =>
      post(server.functionsUrl, "find-api-client", {}, { token: account.token, ip });
    const warnings = (event: string) =>
      server.logLines().filter((l) => l.event === event && l.level === "warn");

    // With the store up, the JWT's window lives in Redis.
    for (let i = 1; i <= 3; i++) {
      const res = await find();
      equal(res.body.status, "success");
      equal(res.headers.get("x-ratelimit-remaining"), String(240 - i));
    }
    ok((await redis.keys(`${prefix}:*`)).length > 0, "the window keys are in Redis");

    // Store gone: requests are still served, promptly, and the outage is logged once.
    await upstash.down();
    const outageStarted = Date.now();
    let calls = 0;
    while (Date.now() - outageStarted < STORE_RETRY_MS + 1_500) {
      const res = await find();
      calls++;
      equal(res.status, 200);
      equal(res.body.status, "success");
      equal(res.headers.get("x-ratelimit-limit"), "240");
      ok(res.ms < 1_500, `a call during the outage answered in ${Math.round(res.ms)} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
    ok(calls >= 10);
    equal(warnings("rate_limit_store_unreachable").length, 1, "the outage is logged once");

    // The database's window limits exactly: one IP without credentials gets 30, then a 429.
    await withinOneMinute(15_000);
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      statuses.push((await post(server.functionsUrl, "find-api-client", {}, { ip })).status);
    }
    deepStrictEqual(statuses.slice(0, 30), Array(30).fill(401));
    equal(statuses[30], 429, "the database's window refuses the 31st call");

    // Store back: after the retry interval Upstash is asked again.
    upstash.resume();
    await waitFor(
      "the limiter to use Upstash again",
      async () => {
        equal((await find()).body.status, "success");
        return warnings("rate_limit_store_recovered").length > 0;
      },
      STORE_RETRY_MS + 5_000,
      250,
    );
    // Upstash never saw the outage's calls, but the budget they spent still counts.
    assertStillSpent(await post(server.functionsUrl, "find-api-client", {}, { ip }));
    // A caller the outage never saw is counted in Upstash again.
    equal((await post(server.functionsUrl, "find-api-client", {}, { ip: randomIp() })).status, 401);
  } finally {
    await server.stop();
    await upstash.close();
    await redis.kill();
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
    // Served through the REST format by @upstash/ratelimit: the JWT's window lives in the Redis
    // behind it, one request per call.
    for (let i = 1; i <= 20; i++) {
      const res = await find();
      equal(res.body.status, "success");
      equal(res.headers.get("x-ratelimit-limit"), "240");
      equal(res.headers.get("x-ratelimit-remaining"), String(240 - i));
    }
    const restCalls = [...upstash.received.values()].reduce((a, b) => a + b, 0);
    ok(restCalls >= 1, "the limiter called the REST endpoints (/pipeline with auto-pipelining)");
    ok(restCalls >= 20 && restCalls <= 22, `${restCalls} calls to the store for 20 requests`);
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

    // Unreachable: the database's window limits, and its count holds once the store returns.
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
  name: "rate limiter: with the store down, two workers together allow one budget, exactly",
  ignore: realPostgresUrl() === null, // several workers need a real Postgres
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const redis = await RedisServer.start();
  const upstash = UpstashStandIn.start(redis.url);
  const database = await testDatabase("postgres");
  const server = await ServerProcess.start({
    ...database.env,
    ...upstash.env,
    WORKERS: "2",
  });
  try {
    await upstash.down();
    // Each call on a new connection, so the kernel spreads them over both workers.
    await withinOneMinute(15_000);
    const ip = randomIp();
    const workers = new Set<string>();
    const limits = new Set<string | null>();
    let admitted = 0;
    for (let i = 0; i < 40; i++) {
      const res = await fetchFrom(ip)(`${server.functionsUrl}/find-api-client`, {
        method: "POST",
        headers: { connection: "close" },
        body: "{}",
      });
      await res.body?.cancel();
      workers.add(res.headers.get("x-server-worker") ?? "");
      limits.add(res.headers.get("x-ratelimit-limit"));
      if (res.status !== 429) admitted++;
    }
    equal(workers.size, 2, "both workers answered");
    equal(admitted, 30, "the address's budget, once across both workers");
    deepStrictEqual([...limits], ["30"], "every answer states the whole bucket");
  } finally {
    server.kill("SIGTERM");
    await server.status;
    await upstash.close();
    await redis.kill();
    await database.cleanup();
  }
});
