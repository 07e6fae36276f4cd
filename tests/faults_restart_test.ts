/**
 * Fault: Postgres itself is stopped under load and started again (a restart), then the server is
 * told to stop. A cluster of the test's own (`initdb` + `pg_ctl`) is restarted; the machine's
 * shared Postgres is never touched. Runs when RUN_CLUSTER_FAULTS=1 (CI's real-services run).
 */
import { equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { type Account, createAccount } from "../scripts/support/accounts.ts";
import { waitFor } from "../scripts/support/free_port.ts";
import { type Answer, post, randomIp } from "./support/http.ts";
import { PostgresCluster } from "../scripts/support/postgres_cluster.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";

export const clusterFaults = Deno.env.get("RUN_CLUSTER_FAULTS") === "1" &&
  PostgresCluster.available();

const CLIENTS = 32;
/** How long Postgres stays stopped. */
const OUTAGE_MS = 8_000;
/** A request unanswered after this long counts as hung (the bug left them hanging for minutes). */
const HUNG_MS = 20_000;
/** The server's drain timeout (DRAIN_TIMEOUT_MS in scripts/server/server.ts) and a margin to exit. */
const DRAIN_MS = 25_000;

interface Tally {
  answered: Map<number, number>;
  hung: number;
  slowest: number;
}

/** One closed-loop client: find-spell and create-character in turn until `until()` is false. */
async function client(
  functionsUrl: string,
  account: Account,
  until: () => boolean,
  tally: Tally,
): Promise<void> {
  const ip = randomIp();
  for (let i = 0; until(); i++) {
    const [fn, body] = i % 2 === 0
      ? ["find-spell", { id: 1 }]
      : ["create-character", { name: `restart ${i}` }];
    try {
      const res = await post(functionsUrl, fn, body, {
        token: account.token,
        ip,
        timeoutMs: HUNG_MS,
      });
      tally.answered.set(res.status, (tally.answered.get(res.status) ?? 0) + 1);
      tally.slowest = Math.max(tally.slowest, res.ms);
      if (res.status !== 200) await new Promise((r) => setTimeout(r, 50));
    } catch {
      tally.hung++;
    }
  }
}

Deno.test({
  name: "database restart under load: every request ends, then SIGTERM exits within the drain",
  ignore: !clusterFaults,
  async fn() {
    const cluster = await PostgresCluster.create();
    let server: ServerProcess | null = null;
    try {
      server = await ServerProcess.start({
        DATABASE_URL: cluster.url,
        DATABASE_POOL_SIZE: "10",
        // Warnings and errors only: a 500's cause is then in the failure's message.
        LOG_LEVEL: "silent",
      });
      const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
      const accounts: Account[] = [];
      try {
        for (let i = 0; i < CLIENTS; i++) accounts.push(await createAccount(sql, 4));
      } finally {
        await sql.end();
      }
      const functionsUrl = server.functionsUrl;
      const tally: Tally = { answered: new Map(), hung: 0, slowest: 0 };
      let running = true;
      const clients = accounts.map((a) => client(functionsUrl, a, () => running, tally));

      await waitFor(
        "successes before the restart",
        () => (tally.answered.get(200) ?? 0) > 0,
        15_000,
      );
      await new Promise((r) => setTimeout(r, 1_000));
      await cluster.stop("fast");
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      await cluster.start();
      // Served again after the restart, by the same process.
      await waitFor(
        "successes after the restart",
        async () =>
          (await post(functionsUrl, "find-spell", { id: 1 }, {
            token: accounts[0]!.token,
            ip: randomIp(),
            timeoutMs: HUNG_MS,
          }).catch(() => null))?.status === 200,
        // Under a loaded CI machine the cluster's start and the pool's reconnect take longer.
        30_000,
        250,
      );
      const afterRestart = tally.answered.get(200) ?? 0;
      await new Promise((r) => setTimeout(r, 2_000));
      ok((tally.answered.get(200) ?? 0) > afterRestart, "the clients are served again");
      running = false;
      await Promise.all(clients);

      const summary = JSON.stringify(Object.fromEntries(tally.answered));
      equal(tally.hung, 0, `requests left unanswered: ${tally.hung} (answered ${summary})`);
      for (const status of tally.answered.keys()) {
        const unhandled = server.output.split("\n").filter((l) => l.includes("unhandled"));
        ok(
          status === 200 || status === 503,
          `only successes and 503s: ${summary}\n${unhandled.slice(0, 5).join("\n")}`,
        );
      }

      // A second outage, then SIGTERM while it lasts: the process exits within its drain timeout.
      const stuck = accounts.map((a) =>
        post(functionsUrl, "create-character", { name: "at shutdown" }, {
          token: a.token,
          timeoutMs: HUNG_MS,
        }).catch(() => null)
      );
      await cluster.stop("fast");
      const signalled = Date.now();
      server.kill("SIGTERM");
      const exited = await Promise.race([
        server.status,
        new Promise<null>((r) => setTimeout(() => r(null), DRAIN_MS + 10_000)),
      ]);
      ok(exited !== null, `SIGTERM exited after ${Date.now() - signalled} ms`);
      await Promise.all(stuck);
    } finally {
      await server?.stop();
      await cluster.destroy();
    }
  },
});

/** How long a call may take while the database is frozen (the reserve wait plus the deadline). */
const FROZEN_PROMPT_MS = 12_000;

/** Runs `fn` with the postmaster and the server's backends stopped: sockets open, nothing answers. */
async function whileFrozen(cluster: PostgresCluster, fn: () => Promise<void>): Promise<void> {
  const { postmaster, backends } = await cluster.pids();
  ok(backends.length > 0, "the server holds connections");
  cluster.signal([postmaster, ...backends], "SIGSTOP");
  try {
    await fn();
  } finally {
    cluster.signal([postmaster, ...backends], "SIGCONT");
  }
}

function assertPromptUnavailable(res: Answer): void {
  equal(res.status, 503, `frozen: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  ok(res.ms < FROZEN_PROMPT_MS, `frozen: answered in ${Math.round(res.ms)} ms`);
}

async function servedAgain(call: () => Promise<Answer>): Promise<void> {
  await waitFor(
    "a success after the database thaws",
    async () => (await call()).status === 200,
    20_000,
    250,
  );
}

Deno.test({
  name: "database frozen or locked: calls answer 503 within seconds, and recover once it thaws",
  ignore: !clusterFaults,
  async fn() {
    const cluster = await PostgresCluster.create();
    let server: ServerProcess | null = null;
    const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
    try {
      server = await ServerProcess.start({ DATABASE_URL: cluster.url, LOG_LEVEL: "silent" });
      const account = await createAccount(sql, 4);
      const find = () =>
        post(server!.functionsUrl, "find-spell", { id: 1 }, {
          token: account.token,
          ip: randomIp(),
          timeoutMs: HUNG_MS,
        });
      equal((await find()).status, 200);

      // A statement that waits on a lock longer than the statement timeout is cancelled: 503.
      const locked = sql.begin(async (tx) => {
        await tx`lock table public.spell in access exclusive mode`;
        const res = await find();
        equal(res.status, 503, `locked: HTTP ${res.status} ${JSON.stringify(res.body)}`);
        equal(res.body.message, "Service temporarily unavailable");
      });
      await locked;
      equal((await find()).status, 200, "served again once the lock is gone");

      await whileFrozen(cluster, async () => {
        const frozen = await Promise.all(Array.from({ length: 12 }, () => find()));
        for (const res of frozen) assertPromptUnavailable(res);
      });
      await servedAgain(find);
    } finally {
      await server?.stop();
      await sql.end({ timeout: 1 });
      await cluster.destroy();
    }
  },
});

Deno.test({
  name: "database frozen: a count sent before any transaction (a body past 64 KB) answers 503 " +
    "within seconds (prepared statements off, as behind the hosted pooler)",
  ignore: !clusterFaults,
  async fn() {
    const cluster = await PostgresCluster.create();
    let server: ServerProcess | null = null;
    const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
    try {
      server = await ServerProcess.start({
        DATABASE_URL: cluster.url,
        // Unnamed, a statement with parameters waits for a description the frozen database never
        // sends, and postgres.js's query_timeout does not end that wait.
        DATABASE_PREPARE: "false",
        LOG_LEVEL: "silent",
      });
      const account = await createAccount(sql, 4);
      // A body this large is read only once its budget is known, so its count goes to the
      // database on a pooled connection of its own, before the request's transaction.
      const findLarge = () =>
        post(server!.functionsUrl, "find-spell", { id: 1, name: "x".repeat(70_000) }, {
          token: account.token,
          ip: randomIp(),
          timeoutMs: HUNG_MS,
        });
      equal((await findLarge()).status, 200);
      await whileFrozen(cluster, async () => assertPromptUnavailable(await findLarge()));
      await servedAgain(findLarge);
    } finally {
      await server?.stop();
      await sql.end({ timeout: 1 });
      await cluster.destroy();
    }
  },
});
