/**
 * Fault: more connections than the server has file descriptors. A server started under a limit of
 * 1,024 open files gets 5,000 idle sockets, then 4,000 uploads that stall after their headers.
 * Before the connection cap, about 1,000 idle sockets ended the process with "Too many open files"
 * and stalled uploads grew it by hundreds of megabytes. Runs when RUN_CLUSTER_FAULTS=1 (it opens
 * thousands of sockets and takes about half a minute).
 */
import { equal, ok } from "node:assert/strict";
import { flood, stalledUploadHead } from "./support/connection_flood.ts";
import { raiseOpenFileLimit } from "../scripts/server/file_limit.ts";
import { createAccount, tokenFor } from "../scripts/support/accounts.ts";
import { post, randomIp } from "./support/http.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { defaultTestDatabase } from "./support/test_database.ts";

const enabled = Deno.env.get("RUN_CLUSTER_FAULTS") === "1" && Deno.build.os === "linux";
/** The idle timeout (IDLE_TIMEOUT_MS in scripts/server/connection_front.ts), the body deadline and margin. */
const WAIT_MS = 40_000;
/** A bound on what the floods may add to the server's memory (stalled uploads added 746 MB). */
const GROWTH_MB = 200;

/**
 * The server under a limit of 1,024 open files, so at most 256 client connections, on a fresh
 * database. This process holds the other end of every socket, so its own limit is raised.
 */
async function cappedServer() {
  await raiseOpenFileLimit();
  const database = await defaultTestDatabase();
  const child = await ServerProcess.start({ ...database.env, LOG_LEVEL: "silent" }, {
    openFiles: [1024, 1024],
  });
  if (!/Connections: at most 256 open at once/.test(child.output)) {
    await child.stop();
    await database.cleanup();
    throw new Error(`the start did not cap connections at 256:\n${child.output}`);
  }
  return { database, child, port: Number(new URL(child.functionsUrl).port) };
}

Deno.test({
  name: "open connections: 5,000 idle and 4,000 stalled under a 1,024-file limit, the server lives",
  ignore: !enabled,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { database, child, port } = await cappedServer();
    try {
      const sql = await database.connect();
      const account = await createAccount(sql, 4).finally(() => sql.end());
      const serves = async () =>
        (await post(child.functionsUrl, "find-character", {}, {
          token: account.token,
          ip: randomIp(),
        })).body.status;

      const idle = await flood({ port, count: 5_000, waitMs: WAIT_MS, pid: child.pid });
      equal(idle.opened + idle.outcomes.failed, 5_000);
      equal(idle.outcomes.open, 0, "the server ended every idle connection");
      // Over the cap the oldest connection that has sent nothing is closed to let the new one in;
      // a 503 only when none may go, so no other answer.
      ok(idle.outcomes.closed > 0, `idle connections are closed: ${JSON.stringify(idle)}`);
      for (const status of Object.keys(idle.statuses)) equal(status, "503", JSON.stringify(idle));
      equal(await serves(), "success", "the server serves once the idle ones are gone");

      const stalled = await flood({
        port,
        count: 4_000,
        // A token of its own: the uploads spend its budget, not the one `serves` uses.
        head: stalledUploadHead(await tokenFor(account)),
        waitMs: WAIT_MS,
        pid: child.pid,
      });
      equal(stalled.outcomes.open, 0, "the server ended every stalled upload");
      // Each is closed to make room for newer ones once it has stalled, answered 400 at the body
      // deadline, or 429 once the token's budget is spent.
      ok(stalled.outcomes.closed > 0, `stalled uploads are closed: ${JSON.stringify(stalled)}`);
      for (const status of Object.keys(stalled.statuses)) {
        ok(["400", "429", "503"].includes(status), JSON.stringify(stalled));
      }
      equal(await serves(), "success");

      for (const report of [idle, stalled]) {
        if (!report.rssMb) continue;
        const growth = report.rssMb.peak - report.rssMb.before;
        ok(growth < GROWTH_MB, `RSS grew by ${growth} MB: ${JSON.stringify(report.rssMb)}`);
      }
    } finally {
      await child.stop();
      await database.cleanup();
    }
  },
});

/**
 * Ten calls made while a flood arrives: each must answer 200. The flood's connections send `head`
 * (nothing for idle ones) and stall; the calls start `afterMs` into it, while it still arrives.
 */
async function servedDuringFlood(head: string | undefined, afterMs: number): Promise<void> {
  const { database, child, port } = await cappedServer();
  try {
    const sql = await database.connect();
    const account = await createAccount(sql, 1).finally(() => sql.end());
    const flooding = flood({ port, count: 3_000, head, waitMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    const started = performance.now();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await post(child.functionsUrl, "find-character", {}, {
        token: account.token,
        ip: randomIp(),
      });
      statuses.push(res.status);
    }
    const callsMs = Math.round(performance.now() - started);
    const report = await flooding;
    equal(
      statuses.filter((s) => s !== 200).length,
      0,
      `calls during the flood: ${statuses.join(",")}; flood: ${JSON.stringify(report)}`,
    );
    ok(report.openingMs > afterMs, `the flood was still arriving (${report.openingMs} ms)`);
    console.log(
      `${head ? "stalled-header" : "idle"} flood of 3,000 over a cap of 256, opened in ` +
        `${report.openingMs} ms: 10 calls from ${afterMs} ms on answered 200 in ${callsMs} ms; ` +
        `flood outcomes ${JSON.stringify(report.outcomes)}`,
    );
  } finally {
    await child.stop();
    await database.cleanup();
  }
}

Deno.test({
  name:
    "open connections: a client that sends its request at once is served while an idle flood grows",
  ignore: !enabled,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => servedDuringFlood(undefined, 200),
});

Deno.test({
  name:
    "open connections: a client is served while connections that stall in their headers flood in",
  ignore: !enabled,
  sanitizeOps: false,
  sanitizeResources: false,
  // Their headers never end; each becomes sheddable once it has sent nothing for 250 ms.
  fn: () =>
    servedDuringFlood("POST /functions/v1/find-character HTTP/1.1\r\nHost: 127.0.0.1\r\n", 600),
});
