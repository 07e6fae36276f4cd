/**
 * `deno task start` with several workers (WORKERS) on real Postgres: every worker serves on the
 * one port, and an API key's budget is one budget across them, kept by the database or by Upstash.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { createAccount, createApiKeys } from "../scripts/support/accounts.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { UpstashStandIn } from "../scripts/support/upstash_stand_in.ts";
import { realPostgresUrl, testDatabase } from "./support/test_database.ts";

const API_KEY_LIMIT = 120;
const redisUrl = Deno.env.get("REDIS_URL");

/** POSTs over a connection of its own, so the kernel picks a worker for every request. */
async function postAlone(
  url: string,
  body: unknown,
  token: string,
): Promise<
  { status: number; worker: string | null; limit: string | null; remaining: string | null }
> {
  const client = Deno.createHttpClient({});
  try {
    const res = await fetch(url, {
      method: "POST",
      client,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    await res.body?.cancel();
    return {
      status: res.status,
      worker: res.headers.get("x-server-worker"),
      limit: res.headers.get("x-ratelimit-limit"),
      remaining: res.headers.get("x-ratelimit-remaining"),
    };
  } finally {
    client.close();
  }
}

/** Waits, when a minute boundary is near, until just after it: the limiter's windows are minutes. */
async function awayFromMinuteBoundary(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 61_000 - intoMinute));
}

for (const store of ["database", "Upstash"] as const) {
  Deno.test({
    name: `WORKERS=2: both workers serve, and one API key's budget is shared exactly (${store})`,
    ignore: realPostgresUrl() === null || (store === "Upstash" && !redisUrl),
    async fn() {
      const database = await testDatabase("postgres");
      const upstash = store === "Upstash" ? UpstashStandIn.start(redisUrl!) : null;
      const server = await ServerProcess.start({
        ...database.env,
        ...upstash?.env,
        WORKERS: "2",
        DATABASE_POOL_SIZE: "4",
        LOG_LEVEL: "silent",
      });
      try {
        ok(
          server.output.includes("Workers: 2 sharing port") &&
            server.output.includes("2 database connections each (4 of DATABASE_POOL_SIZE=4)"),
          server.output,
        );
        equal(server.output.match(/^Ready:/gm)?.length, 1, "one ready line for all workers");
        const sql = await database.connect();
        const [key] = await createAccount(sql, 2)
          .then((owner) => createApiKeys(sql, owner.user_id, 1))
          .finally(() => sql.end());

        await awayFromMinuteBoundary();
        const url = `${server.functionsUrl}/find-spell`;
        const answers: Awaited<ReturnType<typeof postAlone>>[] = [];
        // Eight callers at a time, each request on a new connection.
        let sent = 0;
        await Promise.all(Array.from({ length: 8 }, async () => {
          while (sent < API_KEY_LIMIT + 10) {
            sent++;
            answers.push(await postAlone(url, { name: "kindle spark" }, key!));
          }
        }));

        const workers = new Set(answers.map((a) => a.worker));
        deepStrictEqual([...workers].sort(), ["1", "2"], "both workers answered");
        const admitted = answers.filter((a) => a.status === 200);
        const refused = answers.filter((a) => a.status === 429);
        equal(admitted.length + refused.length, answers.length, "only 200 and 429");
        // Each worker alone would admit a whole budget: together they admit exactly one.
        equal(admitted.length, API_KEY_LIMIT);
        equal(refused.length, 10);
        deepStrictEqual(
          [...new Set(answers.map((a) => a.limit))],
          [String(API_KEY_LIMIT)],
          "every answer states the whole bucket",
        );
        deepStrictEqual(
          admitted.map((a) => Number(a.remaining)).sort((a, b) => a - b),
          Array.from({ length: API_KEY_LIMIT }, (_, i) => i),
          "every admitted request took its own place in the one window",
        );
      } finally {
        await server.stop();
        await upstash?.close();
        await database.cleanup();
      }
    },
  });
}
