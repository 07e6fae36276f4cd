/**
 * Fault: clients that start a whole-result find (about 29 MB here) and stop reading. They must
 * not hold the database's connections or unbounded memory: a stalled reader gives its connection
 * back after STALL_LIMIT_MS, whole results take all but two of the pool at most (half of it per
 * caller, who is refused with a 429 beyond it), and a normal find by id is served meanwhile. Behind RUN_CLUSTER_FAULTS (CI sets it).
 */
import { equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { createAccount } from "../scripts/support/accounts.ts";
import { ServerProcess } from "../scripts/support/server_process.ts";
import { STALL_LIMIT_MS } from "../supabase/functions/_shared/row_stream.ts";
import { fetchFrom, post, randomIp } from "./support/http.ts";
import { testDatabase } from "./support/test_database.ts";

const clusterFaults = Deno.env.get("RUN_CLUSTER_FAULTS") === "1";
const ROWS = 30_000;
const STALLED = 20;

Deno.test({
  name: "slow readers: stalled whole finds hold no connection for long and block no one",
  ignore: !clusterFaults,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const database = await testDatabase("postgres");
    const server = await ServerProcess.start({
      ...database.env,
      DATABASE_POOL_SIZE: "10",
      LOG_LEVEL: "silent",
    });
    const sql = postgres(database.env.DATABASE_URL!, { max: 2, onnotice: () => {} });
    const stalled: { reader: ReadableStreamDefaultReader<Uint8Array> }[] = [];
    try {
      const accounts = await Promise.all(
        Array.from({ length: STALLED }, () => createAccount(sql, 2)),
      );
      await sql`insert into public.ability_block (name, type, description, content_source_id)
        select 'Stalled ' || g, 'feat', repeat('x', 900), 1 from generate_series(1, ${ROWS}) g`;
      const rssBefore = (await server.memory()).rssKb;
      // Each stalled client its own address and token, so the per-caller cap does not stop them.
      const started = await Promise.all(accounts.map(async (account) => {
        const res = await fetchFrom(randomIp())(`${server.functionsUrl}/find-ability-block`, {
          method: "POST",
          headers: { authorization: `Bearer ${account.token}` },
          body: "{}",
        });
        if (res.body) stalled.push({ reader: res.body.getReader() });
        return res.status;
      }));
      // The first chunk is read, then nobody reads on.
      await Promise.all(stalled.map((s) => s.reader.read().catch(() => {})));
      const streaming = started.filter((s) => s === 200).length;
      ok(streaming <= 8, `${streaming} whole results sent at once (all but two of the pool is 8)`);

      const normal = await post(server.functionsUrl, "find-spell", { id: 1 }, {
        ip: randomIp(),
        token: accounts[0]!.token,
      });
      equal(
        normal.status,
        200,
        `a normal find is served while readers stall: ${
          JSON.stringify(normal.body)
        } (${streaming} streaming)`,
      );

      await new Promise((r) => setTimeout(r, STALL_LIMIT_MS + 2_000));
      const [held] = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state like 'idle in transaction%'`;
      equal(held?.n, 0, "stalled readers gave their connections back");
      const { rssKb: rssAfter, peakRssKb } = await server.memory();
      // Before the caps, twenty stalled readers took the server from 137 MB to 757 MB; the bound
      // is the (a bounded stream: twenty parallel whole finds add at most 150 MB at peak).
      ok(
        peakRssKb - rssBefore < 150 * 1024,
        `memory grew ${Math.round((peakRssKb - rssBefore) / 1024)} MB with stalled readers`,
      );
      console.log(
        `slow readers: ${streaming} of ${STALLED} streamed, RSS ${Math.round(rssBefore / 1024)}` +
          ` MB before, peak ${Math.round(peakRssKb / 1024)} MB, ${Math.round(rssAfter / 1024)} MB` +
          " after; connections held after the stall limit: 0",
      );

      // One caller's whole results being sent take at most half the pool (5 of 10): the next is
      // refused with a 429 it can retry, not queued behind them.
      const ip = randomIp();
      const ownStreams = await Promise.all(Array.from({ length: 6 }, async () => {
        const res = await fetchFrom(ip)(`${server.functionsUrl}/find-ability-block`, {
          method: "POST",
          headers: { authorization: `Bearer ${accounts[1]!.token}` },
          body: "{}",
        });
        if (res.status === 200 && res.body) stalled.push({ reader: res.body.getReader() });
        return { status: res.status, retryAfter: res.headers.get("retry-after"), res };
      }));
      equal(ownStreams.filter((r) => r.status === 200).length, 5, "five of one caller's streams");
      const refused = ownStreams.find((r) => r.status !== 200)!;
      equal(refused.status, 429);
      equal(refused.retryAfter, "2");
      const body = await refused.res.json();
      equal(body.status, "fail");
      ok(/Too many whole results of yours/.test(body.data.message), body.data.message);
    } finally {
      for (const s of stalled) await s.reader.cancel().catch(() => {});
      await sql.end();
      server.kill("SIGTERM");
      await server.status;
      await database.cleanup();
    }
  },
});
