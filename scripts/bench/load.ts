/**
 * The load benchmark (`deno task bench`): a server subprocess on real Postgres (a fresh database,
 * which keeps the rate limiter's counts too). First the limit of one HTTP round trip: a bare server (`bare_server.ts`) running
 * find-spell's prepared SELECT, and the API's find-spell by id with API keys and with JWTs, all
 * driven by `wrk` at concurrency 64 in the same run, with Postgres CPU per request and the
 * API/bare ratio. Then every scenario driven by closed-loop workers at fixed concurrency, next to
 * the same SELECT issued directly through postgres.js. Prints requests/s, latency percentiles,
 * errors, the server's memory, and the ratios. `--smoke` is a short run for CI; `--soak` adds a
 * 2-minute run that watches the server's resident memory; `--workers 1,2` compares server worker
 * counts instead (`workers.ts`). `--sources N` measures find by id and simple search without and
 * then with N more content sources (another user's), and what they kept (`--smoke --sources 2000`
 * is its CI variant).
 *
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, used only to
 * create and drop the benchmark's own database).
 */
import postgres from "postgres";
import { parseArgs } from "node:util";
import { createAccount, createApiKeys, tokenFor } from "../support/accounts.ts";
import { freshDatabase } from "../support/fresh_database.ts";
import { ServerProcess } from "../support/server_process.ts";
import { selectList } from "../../supabase/functions/_shared/content/find_content.ts";
import { contentTypes } from "@shared/content_types.ts";
import { contentTable } from "../../supabase/functions/_shared/content/tables.ts";
import { type LoadResult, runLoad, type Shot } from "./run_load.ts";
import { TokenPool } from "./token_pool.ts";
import { compareWithSources } from "./sources.ts";
import { cpuSeconds, processesMatching, profileDuring, summarize } from "./cpu_profile.ts";
import { freePort } from "../support/free_port.ts";
import { haveWrk, wrkLoad } from "./wrk.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    soak: { type: "boolean", default: false },
    seconds: { type: "string" },
    "soak-seconds": { type: "string", default: "120" },
    concurrency: { type: "string" },
    profile: { type: "boolean", default: false },
    only: { type: "string" },
    "bare-concurrency": { type: "string", default: "64" },
    workers: { type: "string" },
    sources: { type: "string" },
  },
});
const seconds = Number(args.seconds ?? (args.smoke ? 1.5 : 10));
/** Unmeasured seconds before each run, so connections and caches are warm. */
const warmup = args.smoke ? 0.5 : 1;
const levels = (args.concurrency ?? (args.sources ? "1,16" : "1,16,64")).split(",").map(Number);
const soakSeconds = Number(args["soak-seconds"]);
/** Connections in the server's pool and in the raw client's: the same for a fair comparison. */
const POOL_SIZE = 10;
const API_KEY_LIMIT = 120;
const RAW_PREPARED = "raw SELECT, prepared";
const BARE = "bare Deno.serve + prepared SELECT";
const WRK_API_KEY = "API find-spell by id, API key";
const WRK_JWT = "API find-spell by id, JWT";
const RAW_UNPREPARED = "raw SELECT, unprepared";
/** How every success envelope begins (the server writes `status` first). */
const SUCCESS = '{"status":"success","data":';
const JWT_LIMIT = 240;
/** API keys made up front: enough for ~3,000 requests/s with every key resting between uses. */
const API_KEYS = args.smoke ? 400 : 3_500;
/**
 * API keys and JWTs for the `wrk` runs, each used 100 times in a row: a key's budget is 120
 * requests a minute and a token's 240 (no setting raises them), so a 10-second run at up to
 * 15,000 requests/s needs 1,500 of them. Half go to each API server; they are apart from the ones
 * above, which are spent in turn.
 */
const WRK_API_KEYS = args.smoke ? 400 : 4_000;
const WRK_JWTS = args.smoke ? 200 : 2_000;
const bareConcurrency = Number(args["bare-concurrency"]);

const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";

if (args.workers) {
  // The gain from more server workers, instead of the scenario table (see workers.ts).
  const { compareWorkers } = await import("./workers.ts");
  const clean = await compareWorkers({
    counts: args.workers.split(",").map(Number),
    levels,
    seconds,
    warmup,
    databaseUrl,
    poolSize: POOL_SIZE,
    apiKeys: API_KEYS,
    apiKeyLimit: API_KEY_LIMIT,
  });
  Deno.exit(clean ? 0 : 1);
}

const database = await freshDatabase(databaseUrl, "rpgload");
const inspectPort = freePort();
const server = await ServerProcess.start({
  DATABASE_URL: database.url,
  DATABASE_POOL_SIZE: String(POOL_SIZE),
  // One log line per request would be read back by this process, on the same two cores.
  LOG_LEVEL: "silent",
}, { denoFlags: args.profile ? [`--inspect=127.0.0.1:${inspectPort}`] : [] });
const sql = postgres(database.url, { max: POOL_SIZE, onnotice: () => {} });
let peakRssKb = 0;
const sampler = setInterval(async () => {
  peakRssKb = Math.max(peakRssKb, (await server.memory().catch(() => ({ rssKb: 0 }))).rssKb);
}, 500);

try {
  const startRss = (await server.memory()).rssKb;
  const account = await createAccount(sql, 2);
  // An account holds at most 10 API clients, so the keys come from as many accounts as needed.
  const keys: string[] = [];
  while (keys.length < API_KEYS) {
    const owner = await createAccount(sql, 2);
    keys.push(...await createApiKeys(sql, owner.user_id, Math.min(10, API_KEYS - keys.length)));
  }
  const apiKeys = new TokenPool(keys, API_KEY_LIMIT - 10);
  const wrkKeys: string[] = [];
  while (wrkKeys.length < WRK_API_KEYS) {
    const owner = await createAccount(sql, 2);
    wrkKeys.push(
      ...await createApiKeys(sql, owner.user_id, Math.min(10, WRK_API_KEYS - wrkKeys.length)),
    );
  }
  const wrkJwts = await Promise.all(Array.from({ length: WRK_JWTS }, () => tokenFor(account)));
  const jwts = new TokenPool([], JWT_LIMIT - 10, () => tokenFor(account));
  const [spell] = await sql<{ id: number }[]>`
    select t.id from public.spell t join public.content_source s on s.id = t.content_source_id
    where s.user_id is null and s.is_published order by t.id limit 1`;
  if (!spell) throw new Error("The seed holds no official spell to find");
  const spellId = Number(spell.id);
  const foundSpell = `{"status":"success","data":{"id":${spellId},`;
  const characterIds: number[] = [];
  for (let i = 0; i < 64; i++) {
    const res = await call("create-character", { name: `bench ${i}` }, await jwts.next());
    if (res !== true && typeof res !== "string") characterIds.push(res.id);
  }
  if (characterIds.length < 64) throw new Error("Could not create the characters to update");

  const rawQuery = `select ${selectList(contentTable(contentTypes.spell))} from public.spell t
    where t.id = any($1::bigint[]) order by t.name, t.id limit 5000`;
  const scenarios: [string, Shot][] = [
    [
      "find-spell by id, API key",
      async () => await shot("find-spell", { id: spellId }, await apiKeys.next(), foundSpell),
    ],
    // The endpoint sends this SELECT as a prepared statement; the unprepared run is the baseline
    // of earlier measurements, when it did not.
    [RAW_PREPARED, async () => rawFind(await sql.unsafe(rawQuery, [[spellId]], { prepare: true }))],
    [RAW_UNPREPARED, async () => rawFind(await sql.unsafe(rawQuery, [[spellId]]))],
    [
      "find-spell by id, JWT",
      async () => await shot("find-spell", { id: spellId }, await jwts.next(), foundSpell),
    ],
    [
      "create-character",
      async () => await shot("create-character", { name: "load" }, await jwts.next(), SUCCESS),
    ],
    ["update-character", async () => {
      const id = characterIds[Math.floor(Math.random() * characterIds.length)];
      return await shot(
        "update-character",
        { id, hp_current: Math.floor(Math.random() * 100) },
        await jwts.next(),
        SUCCESS,
      );
    }],
    [
      "search-data (simple)",
      async () => await shot("search-data", { text: "spark" }, await jwts.next(), SUCCESS),
    ],
  ];

  if (args.only) {
    // Keep the scenarios whose label contains one of the given words, for a quick comparison.
    const words = args.only.split(",");
    const kept = scenarios.filter(([label]) => words.some((w) => label.includes(w)));
    scenarios.splice(0, scenarios.length, ...kept);
  }

  if (args.sources) {
    const outcome = await compareWithSources({
      sql,
      count: Number(args.sources),
      levels,
      seconds,
      warmup,
      scenarios: scenarios.filter(([label]) =>
        label.startsWith("find-spell by id") || label.startsWith("search-data")
      ),
      line,
    });
    // The smoke run fails only on errors; timing targets depend on the machine's load.
    if (args.smoke ? outcome.errors > 0 : !outcome.met) Deno.exitCode = 1;
  } else if (args.profile) {
    // Where the time goes: CPU per request by process for each scenario, then a V8 profile of the
    // server on the headline scenario, instead of the full table.
    const databaseName = new URL(database.url).pathname.slice(1);
    const groups: [string, () => number[]][] = [
      ["server (Deno)", () => [server.pid]],
      ["Postgres backends", () => processesMatching("postgres:", databaseName)],
      ["load generator (this process)", () => [Deno.pid]],
    ];
    for (const [label, shot] of scenarios) {
      const pids = groups.map(([, find]) => find());
      const before = pids.map((list) => list.reduce((t, pid) => t + cpuSeconds(pid), 0));
      const result = await runLoad(label, levels.at(-1)!, seconds, shot, 1);
      // Backends opened during the run count too (from zero).
      const after = groups.map(([, find]) => find().reduce((t, pid) => t + cpuSeconds(pid), 0));
      console.log(line(result));
      const perRequest = (i: number) => ((after[i]! - before[i]!) * 1000) / (result.requests || 1);
      console.log(
        "  CPU per request: " +
          groups.map(([name], i) => `${name} ${perRequest(i).toFixed(2)} ms`).join(", "),
      );
    }
    const [target] = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json();
    const [label, shot] = scenarios[0]!;
    let result: LoadResult | null = null;
    const profile = await profileDuring(target.webSocketDebuggerUrl, async () => {
      result = await runLoad(label, levels.at(-1)!, seconds, shot);
    });
    if (result) console.log(`profiled: ${line(result)}`);
    console.log(summarize(profile, 30));
    const profileOut = Deno.env.get("PROFILE_OUT");
    if (profileOut) Deno.writeTextFileSync(profileOut, JSON.stringify(profile));
  } else {
    const bare = await againstBare(spellId, foundSpell, wrkKeys, wrkJwts);
    await measure(scenarios, startRss, apiKeys, bare);
  }
} finally {
  clearInterval(sampler);
  await sql.end();
  await server.stop();
  await database.drop();
}

/** Runs every scenario at every concurrency (and the soak when asked), then prints the report. */
async function measure(
  scenarios: [string, Shot][],
  startRss: number,
  apiKeys: TokenPool,
  bare: BareComparison | null,
): Promise<void> {
  const results: LoadResult[] = [];
  for (const concurrency of levels) {
    for (const [label, shot] of scenarios) {
      const result = await runLoad(label, concurrency, seconds, shot, warmup);
      results.push(result);
      console.error(line(result));
    }
  }
  const endRss = (await server.memory()).rssKb;

  let soak: { samples: number[]; result: LoadResult } | null = null;
  if (args.soak) {
    const samples: number[] = [];
    const watch = setInterval(async () => samples.push((await server.memory()).rssKb), 5_000);
    const result = await runLoad(
      "soak: find-spell by id, API key",
      64,
      soakSeconds,
      scenarios[0]![1],
    );
    clearInterval(watch);
    soak = { samples, result };
    console.error(line(result));
  }
  const { peakRssKb: vmPeak } = await server.memory();
  report(
    results,
    { startRss, endRss, peakRss: Math.max(peakRssKb, vmPeak) },
    soak,
    apiKeys.waits,
    bare,
  );
}

/** The `wrk` runs side by side: each with the Postgres and server CPU it cost per request, in ms. */
type BareComparison = { result: LoadResult; pgCpuMs: number; serverCpuMs: number }[] | "no wrk";

/**
 * The limit of one HTTP round trip: the bare server, then the API with API keys and with JWTs,
 * each driven by `wrk` at `bareConcurrency` in this run, with the CPU time the database's
 * backends spent (from /proc, before and after each run) divided by the requests answered.
 */
async function againstBare(
  spellId: number,
  foundSpell: string,
  keys: string[],
  jwts: string[],
): Promise<BareComparison> {
  if (!await haveWrk()) {
    console.error("wrk is not installed (Debian: apt-get install wrk): no bare-server comparison");
    return "no wrk";
  }
  const bareServer = await startBareServer();
  const databaseName = new URL(database.url).pathname.slice(1);
  const postgresCpu = () =>
    processesMatching("postgres:", databaseName).reduce((t, pid) => t + cpuSeconds(pid), 0);
  const body = { id: spellId };
  const targets = [
    {
      label: BARE,
      url: bareServer.url,
      pid: bareServer.pid,
      tokens: ["none"],
      body,
      expected: foundSpell,
    },
    {
      label: WRK_API_KEY,
      pid: server.pid,
      url: `${server.functionsUrl}/find-spell`,
      tokens: keys,
      body,
      expected: foundSpell,
    },
    {
      label: WRK_JWT,
      pid: server.pid,
      url: `${server.functionsUrl}/find-spell`,
      tokens: jwts,
      body,
      expected: foundSpell,
    },
  ];
  const runs: { result: LoadResult; pgCpuMs: number; serverCpuMs: number }[] = [];
  try {
    for (const target of targets) {
      let before = [0, 0];
      let after = [0, 0];
      const result = await wrkLoad(target, bareConcurrency, seconds, warmup, {
        before: () => (before = [postgresCpu(), cpuSeconds(target.pid)]),
        after: () => (after = [postgresCpu(), cpuSeconds(target.pid)]),
      });
      const perRequest = (i: number) => ((after[i]! - before[i]!) * 1000) / (result.requests || 1);
      runs.push({ result, pgCpuMs: perRequest(0), serverCpuMs: perRequest(1) });
      console.error(
        `${line(result)}  CPU ms/request: Postgres ${perRequest(0).toFixed(3)}, ` +
          `server ${perRequest(1).toFixed(3)}`,
      );
    }
  } finally {
    await bareServer.stop();
  }
  return runs;
}

/** Starts `bare_server.ts` on the benchmark's database with the API server's pool size. */
async function startBareServer(): Promise<
  { url: string; pid: number; stop: () => Promise<void> }
> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-check", new URL("./bare_server.ts", import.meta.url).pathname],
    env: { DATABASE_URL: database.url, DATABASE_POOL_SIZE: String(POOL_SIZE), PORT: "0" },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`The bare server exited before it was ready:\n${output}`);
    output += value;
    url = /^Ready: (\S+)/m.exec(output)?.[1];
  }
  // Nothing more is read; the rest of its output is discarded.
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** POSTs to a function; returns the success data, or a description of what came instead. */
async function call(
  fn: string,
  body: unknown,
  token: string,
): Promise<{ id: number } | string | true> {
  const { status, text } = await post(fn, body, token);
  if (status !== 200) return `HTTP ${status}: ${text.slice(0, 200)}`;
  const parsed = JSON.parse(text);
  if (parsed.status !== "success") return `${parsed.status}: ${text.slice(0, 200)}`;
  return parsed.data && typeof parsed.data.id === "number" ? parsed.data : true;
}

function rawFind(rows: unknown[]): true | string {
  return rows.length === 1 || `raw select returned ${rows.length} rows`;
}

/**
 * One measured request: a success is HTTP 200 with a body that begins as `expected` does, checked
 * without parsing, so the load generator spends its share of the two cores on requests.
 */
async function shot(
  fn: string,
  body: unknown,
  token: string,
  expected: string,
): Promise<true | string> {
  const { status, text } = await post(fn, body, token);
  return status === 200 && text.startsWith(expected) || `HTTP ${status}: ${text.slice(0, 200)}`;
}

/** POSTs a JSON body to a function with a bearer token; returns the status and the body text. */
async function post(
  fn: string,
  body: unknown,
  token: string,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.functionsUrl}/${fn}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

function line(r: LoadResult): string {
  return `${r.label.padEnd(28)} c=${String(r.concurrency).padStart(2)} ` +
    `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(r.p50)}  p95 ${ms(r.p95)}  p99 ${
      ms(r.p99)
    }  ` +
    `max ${ms(r.max)}  errors ${r.errors}/${r.requests}` +
    (r.samples.length > 0 ? `  e.g. ${r.samples[0]}` : "");
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`.padStart(9);
}

function report(
  results: LoadResult[],
  memory: { startRss: number; endRss: number; peakRss: number },
  soak: { samples: number[]; result: LoadResult } | null,
  keyWaits: number,
  bare: BareComparison | null,
): void {
  const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
  const out: string[] = [];
  out.push(
    `Load benchmark: ${seconds} s per run${args.smoke ? " (smoke)" : ""}, ` +
      `server pool ${POOL_SIZE}, ${navigator.hardwareConcurrency} CPUs, Deno ${Deno.version.deno}`,
  );
  out.push("");
  out.push("| Scenario | Concurrency | req/s | p50 ms | p95 ms | p99 ms | max ms | errors |");
  out.push("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    out.push(
      `| ${r.label} | ${r.concurrency} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ` +
        `${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${
          r.max.toFixed(1)
        } | ${r.errors}/${r.requests} |`,
    );
  }
  out.push("");
  const targets: [string, boolean][] = [];
  if (bare === "no wrk") {
    out.push("No bare-server comparison: wrk is not installed (Debian: apt-get install wrk)");
    targets.push(["wrk installed for the bare-server comparison", false]);
  } else if (bare) {
    const baseline = bare.find((b) => b.result.label === BARE)!.result;
    out.push(
      `Against the bare server, wrk at c=${bareConcurrency}, ${seconds} s each (CPU: the CPU ` +
        "time of the database's backends, and of the server process, over the run per request):",
    );
    out.push("");
    out.push(
      "| Server | req/s | p50 ms | p99 ms | max ms | errors | Postgres CPU ms/req | " +
        "server CPU ms/req | of bare |",
    );
    out.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const { result: r, pgCpuMs, serverCpuMs } of bare) {
      out.push(
        `| ${r.label} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ` +
          `${r.max.toFixed(1)} | ${r.errors}/${r.requests} | ${pgCpuMs.toFixed(3)} | ` +
          `${serverCpuMs.toFixed(3)} | ${(r.rps / baseline.rps * 100).toFixed(0)}% |`,
      );
      if (r.samples[0]) out.push(`  (${r.label}, e.g. ${r.samples[0]})`);
    }
    out.push("");
    for (const { result: r } of bare) {
      if (r.label === BARE) continue;
      const ratio = r.rps / baseline.rps;
      out.push(
        `${r.label}/bare at c=${bareConcurrency}: ${(ratio * 100).toFixed(0)}% ` +
          `(${r.rps.toFixed(0)} / ${baseline.rps.toFixed(0)} req/s)`,
      );
      targets.push([`${r.label} reaches 35% of the bare server`, ratio >= 0.35]);
      targets.push([`${r.label} has zero errors`, r.errors === 0]);
      targets.push([
        `${r.label}: no request above 1 s (slowest ${r.max.toFixed(0)} ms)`,
        r.max <= 1_000,
      ]);
    }
    out.push("");
  }
  for (const concurrency of levels) {
    const at = (label: string) =>
      results.find((r) => r.concurrency === concurrency && r.label.includes(label));
    const api = at("API key");
    const raw = at(RAW_PREPARED);
    if (!api || !raw) continue;
    const ratio = api.rps / raw.rps;
    const unprepared = at(RAW_UNPREPARED);
    out.push(
      `API/raw at c=${concurrency}: ${(ratio * 100).toFixed(0)}% ` +
        `(${api.rps.toFixed(0)} / ${raw.rps.toFixed(0)} req/s)` +
        (unprepared
          ? `; against the unprepared SELECT ${(api.rps / unprepared.rps * 100).toFixed(0)}% ` +
            `(/ ${unprepared.rps.toFixed(0)} req/s)`
          : ""),
    );
    if (concurrency === 64) {
      targets.push(["find-spell by API key at c=64 has zero errors", api.errors === 0]);
    }
  }
  const slowest = Math.max(...results.filter((r) => !r.label.startsWith("raw")).map((r) => r.max));
  targets.push([`no request above 1 s (slowest ${slowest.toFixed(0)} ms)`, slowest <= 1_000]);
  const errors = results.reduce((n, r) => n + r.errors, 0) +
    (Array.isArray(bare) ? bare.reduce((n, b) => n + b.result.errors, 0) : 0);
  targets.push([`no errors in any run (${errors})`, errors === 0]);
  out.push(
    `Server RSS: ${mb(memory.startRss)} idle, ${mb(memory.endRss)} after the runs, ` +
      `peak ${mb(memory.peakRss)}`,
  );
  if (keyWaits > 0) out.push(`(the load generator waited for a rested API key ${keyWaits} times)`);
  if (soak) {
    // Garbage collection makes RSS a sawtooth; a leak shows as a rising top. Compare the first and
    // last thirds after a 20 s warm-up: their medians and their peaks.
    const settled = soak.samples.slice(Math.min(4, soak.samples.length - 1));
    const third = Math.max(1, Math.floor(settled.length / 3));
    const early = settled.slice(0, third);
    const late = settled.slice(-third);
    const medianGrowth = median(late) / median(early) - 1;
    const peakGrowth = Math.max(...late) / Math.max(...early) - 1;
    out.push(
      `Soak ${soakSeconds} s at c=64: ${soak.result.rps.toFixed(0)} req/s, ` +
        `errors ${soak.result.errors}/${soak.result.requests}, p99 ${
          soak.result.p99.toFixed(1)
        } ms, ` +
        `max ${soak.result.max.toFixed(0)} ms; RSS every 5 s (MB): ` +
        soak.samples.map((kb) => (kb / 1024).toFixed(0)).join(" "),
    );
    out.push(
      `RSS, first vs last third after 20 s: median ${mb(median(early))} → ${mb(median(late))} ` +
        `(${(medianGrowth * 100).toFixed(1)}%), peak ${mb(Math.max(...early))} → ` +
        `${mb(Math.max(...late))} (${(peakGrowth * 100).toFixed(1)}%)`,
    );
    targets.push([
      "RSS flat within 10% over the soak",
      Math.abs(medianGrowth) <= 0.1 && peakGrowth <= 0.1,
    ]);
    targets.push([
      `no request above 1 s in the soak (slowest ${soak.result.max.toFixed(0)} ms)`,
      soak.result.max <= 1_000,
    ]);
    targets.push(["no errors in the soak", soak.result.errors === 0]);
  }
  out.push("");
  for (const [what, met] of targets) out.push(`${met ? "MET " : "MISSED"}  ${what}`);
  console.log(out.join("\n"));
  // The smoke run fails only on errors; timing targets depend on the machine's load.
  const failed = args.smoke ? errors > 0 : targets.some(([, met]) => !met);
  if (failed) Deno.exitCode = 1;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
