/**
 * Fault: the server is killed (SIGKILL) in the middle of a stream of creates. Every create that
 * was answered `success` must be there after a restart, on real Postgres and on the embedded
 * database in a data folder.
 */
import { equal, ok } from "node:assert/strict";
import { type Account, createAccount, tokenFor } from "../scripts/support/accounts.ts";
import { post, randomIp } from "./support/http.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { realPostgresUrl, type TestDatabase, testDatabase } from "./support/test_database.ts";

/** Concurrent writers in the stream. */
const WRITERS = 8;
/** Successful creates to see before the kill. */
const KILL_AFTER = 60;

async function killMidStream(database: TestDatabase): Promise<void> {
  let server = await ServerProcess.start(database.env);
  try {
    let account: Account;
    {
      const sql = await database.connect();
      account = await createAccount(sql, 2).finally(() => sql.end());
    }
    const tokens = await Promise.all(Array.from({ length: WRITERS }, () => tokenFor(account)));
    const answered: number[] = [];
    const refused: string[] = [];
    let broken = 0;
    let killed = false;
    const writer = async (token: string, w: number) => {
      for (let n = 0; !killed; n++) {
        try {
          const res = await post(server.functionsUrl, "create-character", {
            name: `killed stream ${w}-${n}`,
            level: 1 + (n % 20),
          }, { token, ip: randomIp(), timeoutMs: 10_000 });
          if (res.body.status === "success") answered.push(res.body.data.id);
          else refused.push(JSON.stringify(res.body));
        } catch {
          broken++; // the connection died with the server: the outcome is unknown, and may be either
        }
        if (answered.length >= KILL_AFTER && !killed) {
          killed = true;
          server.kill("SIGKILL");
        }
      }
    };
    await Promise.all(tokens.map(writer));
    const status = await server.status;
    equal(status.signal, "SIGKILL");
    equal(refused.length, 0, `no create was refused: ${refused[0]}`);
    ok(answered.length >= KILL_AFTER);

    server = await ServerProcess.start(database.env);
    const sql = await database.connect();
    try {
      const rows = await sql<{ id: number }[]>`
        select id from public.character where id = any(${answered}::bigint[])`;
      const present = new Set(rows.map((r) => Number(r.id)));
      const lost = answered.filter((id) => !present.has(id));
      equal(lost.length, 0, `answered creates lost after the kill: ${lost.join(", ")}`);
      const [stream] = await sql<{ n: number }[]>`
        select count(*)::int as n from public.character where user_id = ${account.user_id}`;
      ok(stream!.n >= answered.length && stream!.n <= answered.length + broken + WRITERS);
    } finally {
      await sql.end();
    }
    // The restarted server serves the same account.
    const res = await post(server.functionsUrl, "find-character", {}, {
      token: await tokenFor(account),
    });
    equal(res.body.status, "success");
    ok(res.body.data.length >= answered.length);
  } finally {
    await server.stop();
    await database.cleanup();
  }
}

Deno.test("SIGKILL mid-stream: every create answered success survives on the embedded database", async () => {
  await killMidStream(await testDatabase("embedded"));
});

Deno.test({
  name: "SIGKILL mid-stream: every create answered success survives on real Postgres",
  ignore: realPostgresUrl() === null,
  fn: async () => await killMidStream(await testDatabase("postgres")),
});
