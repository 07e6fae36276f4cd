/**
 * `deno task bench --workers 1,2`: the gain from more server workers. For each count, a server
 * subprocess with WORKERS=<count> and the same total pool budget, on one fresh database,
 * answers find-spell by id with API keys at each concurrency; the report gives req/s and latency
 * per count and each count's rate against the first's. The load comes from `wrk` when installed
 * (a C load generator, leaving the cores to the servers), else from this process.
 */
import postgres from "postgres";
import { createAccount, createApiKeys } from "../support/accounts.ts";
import { freshDatabase } from "../support/fresh_database.ts";
import { ServerProcess } from "../support/server_process.ts";
import { runLoad } from "./run_load.ts";
import { TokenPool } from "./token_pool.ts";

export interface WorkersOptions {
  counts: number[];
  levels: number[];
  seconds: number;
  warmup: number;
  databaseUrl: string;
  /** DATABASE_POOL_SIZE: the budget all workers of a server share. */
  poolSize: number;
  apiKeys: number;
  apiKeyLimit: number;
}

interface Measured {
  workers: number;
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  requests: number;
}

/** Runs the comparison and prints its table; false when any request failed. */
export async function compareWorkers(o: WorkersOptions): Promise<boolean> {
  const database = await freshDatabase(o.databaseUrl, "rpgworkers");
  const keysFile = await Deno.makeTempFile({ suffix: ".keys" });
  const wrk = await hasWrk();
  const results: Measured[] = [];
  try {
    let keys: string[] = [];
    let spellId = 0;
    for (const count of o.counts) {
      const server = await ServerProcess.start({
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: String(o.poolSize),
        WORKERS: String(count),
        LOG_LEVEL: "silent",
      });
      try {
        if (keys.length === 0) {
          ({ keys, spellId } = await arrange(database.url, o.apiKeys));
          await Deno.writeTextFile(keysFile, keys.join("\n") + "\n");
        }
        const url = `${server.functionsUrl}/find-spell`;
        const body = JSON.stringify({ id: spellId });
        // Every server starts with a fresh limiter prefix, so the keys' budgets are whole again.
        const pool = new TokenPool(keys, o.apiKeyLimit - 10);
        for (const concurrency of o.levels) {
          const measured = wrk
            ? await withWrk(url, body, keysFile, concurrency, o.seconds, o.warmup)
            : await withRunLoad(url, body, pool, concurrency, o.seconds, o.warmup);
          const row = { workers: count, concurrency, ...measured };
          results.push(row);
          console.error(
            `${count} worker(s) c=${concurrency}: ${row.rps.toFixed(0)} req/s, p50 ` +
              `${row.p50.toFixed(1)} ms, errors ${row.errors}/${row.requests}`,
          );
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await Deno.remove(keysFile).catch(() => {});
    await database.drop();
  }
  report(results, o, wrk);
  return results.every((r) => r.errors === 0);
}

/** API keys (an account holds at most 10 clients) and an official spell to find. */
async function arrange(url: string, count: number): Promise<{ keys: string[]; spellId: number }> {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    const keys: string[] = [];
    while (keys.length < count) {
      const owner = await createAccount(sql, 2);
      keys.push(...await createApiKeys(sql, owner.user_id, Math.min(10, count - keys.length)));
    }
    const [spell] = await sql<{ id: number }[]>`
      select t.id from public.spell t join public.content_source s on s.id = t.content_source_id
      where s.user_id is null and s.is_published order by t.id limit 1`;
    if (!spell) throw new Error("The seed holds no official spell to find");
    return { keys, spellId: Number(spell.id) };
  } finally {
    await sql.end();
  }
}

async function hasWrk(): Promise<boolean> {
  try {
    await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

/**
 * The wrk script: every request takes the next key of the file in turn (each wrk thread walks
 * the whole list, so a key is used requests/keys times per run), and the summary is one JSON line.
 * A non-2xx answer (429, 503) counts as an error.
 */
const WRK_SCRIPT = `
local keys = {}
for line in io.lines(os.getenv("BENCH_KEYS_FILE")) do keys[#keys + 1] = line end
local body = os.getenv("BENCH_BODY")
local i = 0
request = function()
  i = i + 1
  return wrk.format("POST", nil, {
    ["Authorization"] = "Bearer " .. keys[(i % #keys) + 1],
    ["Content-Type"] = "application/json",
  }, body)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"us":%d,"errors":%d,"p50":%f,"p99":%f,"max":%f}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
`;

async function withWrk(
  url: string,
  body: string,
  keysFile: string,
  concurrency: number,
  seconds: number,
  warmup: number,
): Promise<Omit<Measured, "workers" | "concurrency">> {
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(script, WRK_SCRIPT);
  const run = async (duration: number) => {
    const threads = Math.min(2, concurrency);
    const { stdout, code } = await new Deno.Command("wrk", {
      args: [
        `-t${threads}`,
        `-c${concurrency}`,
        `-d${Math.max(1, Math.round(duration))}s`,
        "--latency",
        "-s",
        script,
        url,
      ],
      env: { BENCH_KEYS_FILE: keysFile, BENCH_BODY: body },
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const text = new TextDecoder().decode(stdout);
    const line = text.split("\n").find((l) => l.startsWith('{"requests"'));
    if (code !== 0 || !line) throw new Error(`wrk failed:\n${text}`);
    return JSON.parse(line) as {
      requests: number;
      us: number;
      errors: number;
      p50: number;
      p99: number;
      max: number;
    };
  };
  try {
    if (warmup > 0) await run(warmup);
    const r = await run(seconds);
    return { ...r, rps: r.requests / (r.us / 1e6) };
  } finally {
    await Deno.remove(script).catch(() => {});
  }
}

async function withRunLoad(
  url: string,
  body: string,
  pool: TokenPool,
  concurrency: number,
  seconds: number,
  warmup: number,
): Promise<Omit<Measured, "workers" | "concurrency">> {
  const r = await runLoad("find-spell", concurrency, seconds, async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${await pool.next()}`, "content-type": "application/json" },
      body,
    });
    const text = await res.text();
    return res.status === 200 || `HTTP ${res.status}: ${text.slice(0, 200)}`;
  }, warmup);
  return { rps: r.rps, p50: r.p50, p99: r.p99, max: r.max, errors: r.errors, requests: r.requests };
}

function report(results: Measured[], o: WorkersOptions, wrk: boolean): void {
  const out = [
    `Workers benchmark: find-spell by id with API keys, ${o.seconds} s per run, ` +
    `DATABASE_POOL_SIZE=${o.poolSize} shared by the workers, ${navigator.hardwareConcurrency} ` +
    `CPUs, load from ${wrk ? "wrk" : "this process (wrk not installed)"}`,
    "",
    "| Workers | Concurrency | req/s | vs first | p50 ms | p99 ms | max ms | errors |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    const first = results.find((b) => b.concurrency === r.concurrency);
    const gain = first ? `${(r.rps / first.rps).toFixed(2)}x` : "";
    out.push(
      `| ${r.workers} | ${r.concurrency} | ${r.rps.toFixed(0)} | ${gain} | ${r.p50.toFixed(1)} | ` +
        `${r.p99.toFixed(1)} | ${r.max.toFixed(0)} | ${r.errors}/${r.requests} |`,
    );
  }
  console.log(out.join("\n"));
}
