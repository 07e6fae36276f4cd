/**
 * Fault: the rate limiter's shared store (Redis) goes away and comes back. A throwaway
 * redis-server on a random port is killed and restarted; the machine's Redis is never touched.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { createAccount } from "./support/accounts.ts";
import { waitFor } from "./support/free_port.ts";
import { post, randomIp } from "./support/http.ts";
import { RedisServer } from "./support/redis_server.ts";
import { ServerProcess } from "./support/server_process.ts";
import { defaultTestDatabase } from "./support/test_database.ts";

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
    // The same IP's fresh shared window admits it again: the in-process count is no longer used.
    equal((await post(server.functionsUrl, "find-api-client", {}, { ip })).status, 401);
  } finally {
    await server.stop();
    await redis.kill();
    await database.cleanup();
  }
});
