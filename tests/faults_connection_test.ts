/**
 * Fault: one request's own database connection is cut while its query runs. The request answers
 * 503, and the pool it came from keeps working: the closed connection is not handed out again as
 * open (which would crash the server on its next write), nothing else runs on it, and it opens
 * again for the next request.
 */
import { equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { createAccount, createApiKeys } from "../scripts/support/accounts.ts";
import { waitFor } from "../scripts/support/free_port.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { post, randomIp } from "./support/http.ts";
import { realPostgresUrl, testDatabase } from "./support/test_database.ts";

// Real Postgres only: the embedded database has one session, inside the server, and no backend to
// cut.
const databaseUrl = realPostgresUrl() === null ? undefined : Deno.env.get("DATABASE_URL");

Deno.test({
  name: "a request whose connection is cut mid-query answers 503, and the server keeps serving",
  ignore: databaseUrl === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: cutOneRequestsConnection,
});

async function cutOneRequestsConnection(): Promise<void> {
  const database = await testDatabase("postgres");
  // One connection: after the cut, every request needs that same connection to open again (the
  // pool reopens a closed connection object rather than make a new one).
  const server = await ServerProcess.start({ ...database.env, DATABASE_POOL_SIZE: "1" });
  const locker = await database.connect();
  try {
    const owner = await createAccount(locker);
    const apiKey = (await createApiKeys(locker, owner.user_id, 1))[0]!;
    const find = () =>
      post(server.functionsUrl, "find-spell", { id: 1 }, { token: apiKey, ip: randomIp() });
    // First the statements' first run on the connection (each waits for its description before
    // it is executed), then once they are prepared.
    for (const run of ["first", "later"]) {
      await locker.begin(async (lock) => {
        // The find's SELECT waits on this lock inside its transaction; then its backend is cut.
        await lock`lock table public.spell in access exclusive mode`;
        const blocked = () =>
          lock<{ pid: number }[]>`
            select pid from pg_stat_activity
            where application_name = 'rpg-builder-api' and datname = current_database()
              and wait_event_type = 'Lock'`;
        const pending = find();
        await waitFor("the find to wait on the lock", async () => (await blocked()).length === 1);
        for (const { pid } of await blocked()) await lock`select pg_terminate_backend(${pid})`;
        const cut = await pending;
        equal(cut.status, 503, `${run} run: ${JSON.stringify(cut.body)}`);
        equal(cut.body.status, "error");
      });
      // The connection opens again at once: a call waiting for it would answer 503 after 3 s.
      for (let i = 0; i < 3; i++) {
        const again = await find();
        const what = `${run} run, call ${i} after the cut`;
        equal(again.body.status, "success", `${what}: ${JSON.stringify(again.body)}`);
        ok(again.ms < 2_000, `${what} took ${Math.round(again.ms)} ms`);
      }
    }
    // More concurrent calls than the pool has connections: they take turns on it.
    const together = await Promise.all(Array.from({ length: 8 }, find));
    for (const res of together) equal(res.body.status, "success", JSON.stringify(res.body));
  } finally {
    await server.stop();
    await locker.end();
    await database.cleanup();
  }
}

// A connection refused at start-up (too many connections) has no statement in flight: the pool
// must answer the callers waiting for it with the refusal, and not hand them the closing
// connection.
Deno.test({
  name:
    "connections refused at start-up answer their callers with the refusal, and nothing crashes",
  ignore: databaseUrl === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    if (databaseUrl === undefined) return;
    const owner = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const role = `limited_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await owner.unsafe(`create role ${role} login password 'limited' connection limit 1`);
    const url = new URL(databaseUrl);
    url.username = role;
    url.password = "limited";
    const limited = postgres(url.href, {
      max: 4,
      onnotice: () => {},
    });
    try {
      const answers = await Promise.allSettled(
        Array.from({ length: 6 }, () => limited`select pg_sleep(0.05), 1 as one`),
      );
      ok(answers.some((a) => a.status === "fulfilled"), "the connection the role may have serves");
      for (const answer of answers) {
        if (answer.status === "rejected") {
          equal((answer.reason as { code?: string }).code, "53300", String(answer.reason));
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100)); // a crash would surface here
    } finally {
      await limited.end({ timeout: 1 });
      await owner.unsafe(`drop role ${role}`).catch(() => {});
      await owner.end();
    }
  },
});
