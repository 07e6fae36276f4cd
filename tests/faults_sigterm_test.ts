/**
 * Fault: the server gets SIGTERM while requests are in flight. It must finish them (their writes
 * committed), then exit with status 0.
 */
import { equal, ok } from "node:assert/strict";
import { createAccount, tokenFor } from "../scripts/support/accounts.ts";
import { type Answer, post, randomIp } from "./support/http.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { defaultTestDatabase, realPostgresUrl } from "./support/test_database.ts";

/** How long the slow request takes to send its body. */
const SLOW_BODY_MS = 1_500;

/** A create-character body sent in small pieces over `SLOW_BODY_MS`. */
function slowBody(name: string): ReadableStream<Uint8Array> {
  const text = JSON.stringify({ name, level: 3, notes: { filler: "x".repeat(2_000) } });
  const pieces = 10;
  const size = Math.ceil(text.length / pieces);
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent >= pieces) return controller.close();
      if (sent > 0) await new Promise((r) => setTimeout(r, SLOW_BODY_MS / pieces));
      controller.enqueue(new TextEncoder().encode(text.slice(sent * size, (sent + 1) * size)));
      sent++;
    },
  });
}

// Several workers need a real Postgres: on the embedded database the start runs one.
for (const workers of realPostgresUrl() ? ["1", "2"] : ["1"]) {
  const name = workers === "1" ? "" : ` (${workers} workers)`;
  Deno.test(`SIGTERM${name}: in-flight requests finish, then the server exits 0`, async () => {
    await sigtermDrains(workers);
  });
}

async function sigtermDrains(workers: string): Promise<void> {
  const database = await defaultTestDatabase();
  const env = { ...database.env, WORKERS: workers };
  let server = await ServerProcess.start(env);
  if (workers !== "1") ok(server.output.includes(`Workers: ${workers} `), server.output);
  try {
    const sql = await database.connect();
    const account = await createAccount(sql, 2).finally(() => sql.end());
    const token = await tokenFor(account);

    const slowStarted = performance.now();
    const slow = post(server.functionsUrl, "create-character", undefined, {
      token,
      raw: slowBody("sent slowly through shutdown"),
    }).then((res) => ({ res, at: performance.now() }));
    // A burst of ordinary creates around the signal.
    const burst: Promise<Answer | Error>[] = [];
    for (let i = 0; i < 16; i++) {
      burst.push(
        post(server.functionsUrl, "create-character", { name: `burst ${i}` }, {
          token: await tokenFor(account),
          ip: randomIp(),
        }).catch((e: Error) => e),
      );
    }
    await new Promise((r) => setTimeout(r, 300));
    server.kill("SIGTERM");
    const exited = server.status.then((status) => ({ status, at: performance.now() }));

    const { res, at: answeredAt } = await slow;
    equal(
      res.status,
      200,
      JSON.stringify(res.body) +
        server.output.split("\n").filter((l) => l.includes("unhandled")).join("\n"),
    );
    equal(res.body.status, "success");
    ok(answeredAt - slowStarted >= SLOW_BODY_MS * 0.9, "the slow request really was in flight");
    const burstIds: number[] = [];
    for (const answer of await Promise.all(burst)) {
      // Requests that reached the server before the signal are answered in full.
      if (answer instanceof Error) continue;
      if (answer.status === 503) {
        // Reached the server only after the signal: turned away, never half-done.
        equal(answer.body.message, "Service is shutting down");
        continue;
      }
      equal(answer.body.status, "success", JSON.stringify(answer.body));
      burstIds.push(answer.body.data.id);
    }
    ok(burstIds.length > 0, "the burst was served");

    const { status, at: exitedAt } = await exited;
    equal(status.code, 0, `exit status ${JSON.stringify(status)}\n${server.output.slice(-2000)}`);
    equal(status.signal, null);
    ok(exitedAt >= answeredAt, "the process exited only after answering the slow request");

    // What was answered was committed before the exit.
    server = await ServerProcess.start(env);
    const check = await database.connect();
    try {
      const ids = [res.body.data.id, ...burstIds];
      const [row] = await check<{ n: number }[]>`
        select count(*)::int as n from public.character where id = any(${ids}::bigint[])`;
      equal(row!.n, ids.length);
    } finally {
      await check.end();
    }
  } finally {
    await server.stop();
    await database.cleanup();
  }
}
