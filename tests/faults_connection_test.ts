/**
 * Fault: one request's own database connection is cut while its query runs. The request answers
 * 503, and the pool it came from keeps working: the closed connection is not handed out again as
 * open (which would crash the server on its next write) and nothing else runs on it.
 */
import { equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { call, makeApiKey, makeUser, successData } from "./_harness.ts";
import { waitFor } from "../scripts/support/free_port.ts";
import { realPostgresUrl } from "./support/test_database.ts";

// Real Postgres only: the embedded database has one session, inside the server, and no backend to
// cut. (The harness points DATABASE_URL at the database the server uses, in either mode.)
const databaseUrl = realPostgresUrl() === null ? undefined : Deno.env.get("DATABASE_URL");

Deno.test({
  name: "a request whose connection is cut mid-query answers 503, and the server keeps serving",
  ignore: databaseUrl === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: cutOneRequestsConnection,
});

async function cutOneRequestsConnection(): Promise<void> {
  if (databaseUrl === undefined) return;
  const user = await makeUser();
  const { apiKey } = await makeApiKey(user);
  const [spell] = successData(await call("find-spell", {}, { token: apiKey }));
  const locker = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await locker.begin(async (lock) => {
      // The find's SELECT waits on this lock inside its transaction; then its backend is cut.
      await lock`lock table public.spell in access exclusive mode`;
      const blocked = () =>
        lock<{ pid: number }[]>`
          select pid from pg_stat_activity
          where application_name = 'rpg-builder-api' and wait_event_type = 'Lock'`;
      const pending = call("find-spell", { id: spell.id }, { token: apiKey });
      await waitFor("the find to wait on the lock", async () => (await blocked()).length === 1);
      for (const { pid } of await blocked()) await lock`select pg_terminate_backend(${pid})`;
      const cut = await pending;
      equal(cut.status, 503, JSON.stringify(cut.body));
      equal(cut.body.status, "error");
    });
  } finally {
    await locker.end();
  }
  // More concurrent calls than the pool has connections, so every connection is used again.
  const again = await Promise.all(
    Array.from({ length: 24 }, () => call("find-spell", { id: spell.id }, { token: apiKey })),
  );
  for (const res of again) equal(successData(res).id, spell.id);
}

// The database socket hands postgres.js a ReadyForQuery the server did not send when a connection
// ends with an error while a statement is in flight (database_socket.ts). A connection refused at
// start-up (too many connections) has no statement in flight: given one then, postgres.js handed
// the closing connection to a waiting caller and crashed on its null socket.
Deno.test({
  name:
    "connections refused at start-up answer their callers with the refusal, and nothing crashes",
  ignore: databaseUrl === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    if (databaseUrl === undefined) return;
    const { databaseSocket } = await import(
      "../supabase/functions/_shared/db/database_socket.ts"
    );
    const owner = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const role = `limited_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await owner.unsafe(`create role ${role} login password 'limited' connection limit 1`);
    const url = new URL(databaseUrl);
    url.username = role;
    url.password = "limited";
    const limited = postgres(url.href, {
      max: 4,
      fetch_types: false,
      onnotice: () => {},
      ...({ socket: databaseSocket } as Record<string, unknown>),
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
