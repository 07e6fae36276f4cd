/**
 * The whole-results benchmark (`deno task bench:stream`; `--smoke` for a small, quick run): a
 * server subprocess on a fresh database of the real Postgres, with ROWS official ability blocks,
 * spells and items (generated as the search benchmark's corpus is). For `find-ability-block {}`,
 * `find-spell {}` and `find-item {}` it prints the first-byte time, the total time, the body size,
 * the rows answered (checked against the rows the database holds) and the server's resident memory
 * growth while serving; next to them, in the same run, the time Postgres takes to build the same
 * rows' JSON with `json_agg` as the same caller, and the ratios.
 *
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, used only to
 * create and drop the benchmark's own database; the rate limiter counts there too).
 */
import postgres from "postgres";
import { decodeJwt } from "jose";
import { parseArgs } from "node:util";
import { createAccount } from "../support/accounts.ts";
import { freshDatabase } from "../support/fresh_database.ts";
import { ServerProcess } from "../support/server_process.ts";
import { findStatement } from "../../supabase/functions/_shared/content/find_content.ts";
import { contentTypes } from "@shared/content_types.ts";
import { contentTable } from "../../supabase/functions/_shared/content/tables.ts";
import { CorpusGenerator, loadCorpus } from "./corpus.ts";
import { REQUEST_ROLES } from "../../supabase/functions/_shared/db/request_roles.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    rows: { type: "string" },
    runs: { type: "string" },
  },
});
/** Rows of each type; the smoke run still goes past the old 5,000-row cap. */
const ROWS = Number(args.rows ?? (args.smoke ? 6_000 : 30_000));
/**
 * Measured requests per endpoint, after the first call; the first byte is the first measured
 * call's (the second after the rows arrived, as a client sees it), the rest are medians.
 */
const RUNS = Number(args.runs ?? (args.smoke ? 1 : 5));
const TYPES = ["ability-block", "spell", "item"] as const;

const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";

const database = await freshDatabase(databaseUrl, "rpgstream");
let server: ServerProcess | null = null;
const sql = postgres(database.url, { max: 1, onnotice: () => {} });
try {
  server = await ServerProcess.start({
    DATABASE_URL: database.url,
    LOG_LEVEL: "silent",
  });
  await seed(sql);
  const account = await createAccount(sql, 2);
  const claims = decodeJwt(account.token);

  const header = ("endpoint|rows|body MB|first byte ms (2nd call)|total ms|RSS +MB|json_agg ms|" +
    "total/json_agg").split("|");
  const lines: string[][] = [];
  let failures = 0;
  for (const type of TYPES) {
    const api: Awaited<ReturnType<typeof serve>>[] = [];
    const agg: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const served = await serve(server, `find-${type}`, account.token);
      const timed = await jsonAgg(sql, type, claims);
      if (run === 0) continue; // the first call after the rows arrived
      api.push(served);
      agg.push(timed.ms);
      if (served.rows !== timed.rows) {
        failures++;
        console.error(
          `find-${type}: answered ${served.rows} rows, the database holds ${timed.rows}`,
        );
      }
    }
    // As a client sees it: the second call after the rows arrived.
    const firstByte = api[0]?.firstByteMs ?? NaN;
    const total = median(api.map((a) => a.totalMs));
    const aggMs = median(agg);
    lines.push([
      `find-${type} {}`,
      String(api[0]?.rows ?? 0),
      (median(api.map((a) => a.bytes)) / 1e6).toFixed(1),
      firstByte.toFixed(0),
      total.toFixed(0),
      (Math.max(...api.map((a) => a.rssGrowthKb)) / 1024).toFixed(1),
      aggMs.toFixed(0),
      (total / aggMs).toFixed(2),
    ]);
  }
  console.log(`\nWhole results, ${ROWS} generated rows per type, median of ${RUNS} run(s):`);
  console.log(table([header, ...lines]));
  console.log(
    "\nTargets: first byte <= 100 ms, total <= 2x json_agg, RSS growth < 50 MB (the largest run).",
  );
  if (failures > 0) {
    console.error(`${failures} run(s) answered a different number of rows`);
    Deno.exitCode = 1;
  }
} finally {
  await sql.end();
  await server?.stop();
  await database.drop();
}

/** One find over HTTP, read as it streams; the server's RSS is sampled while it serves. */
async function serve(server: ServerProcess, fn: string, token: string) {
  const before = (await server.memory()).rssKb;
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, (await server.memory().catch(() => ({ rssKb: 0 }))).rssKb);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  const res = await fetch(`${server.functionsUrl}/${fn}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  });
  const decoder = new TextDecoder();
  let text = "";
  let firstByteMs = 0;
  let bytes = 0;
  for await (const chunk of res.body!) {
    if (bytes === 0) firstByteMs = performance.now() - started;
    text += decoder.decode(chunk, { stream: true });
    bytes += chunk.length;
  }
  text += decoder.decode();
  const totalMs = performance.now() - started;
  sampling = false;
  await sampler;
  const body = JSON.parse(text);
  if (res.status !== 200 || body.status !== "success" || !Array.isArray(body.data)) {
    throw new Error(`${fn} answered ${res.status}: ${text.slice(0, 300)}`);
  }
  return { firstByteMs, totalMs, bytes, rows: body.data.length, rssGrowthKb: peak - before };
}

/**
 * The same rows' JSON built by Postgres in one statement, as the same caller (role and claims set
 * as a request sets them); only its length travels back, so the figure is Postgres's own work.
 */
async function jsonAgg(db: postgres.Sql, type: (typeof TYPES)[number], claims: unknown) {
  const { text: query, params } = findStatement(contentTable(contentTypes[type]), {});
  return await db.begin(async (tx) => {
    await tx`select private.begin_request(${REQUEST_ROLES.authenticated}, ${
      JSON.stringify(claims)
    })`;
    const started = performance.now();
    const [row] = await tx.unsafe(
      `select count(*)::int as rows, length(coalesce(json_agg(r), '[]')::text) as bytes
       from (${query}) r`,
      params as never[],
    );
    return { ms: performance.now() - started, rows: Number(row?.rows) };
  });
}

/** ROWS generated rows of each type in one official published book, with a few hundred traits. */
async function seed(db: postgres.Sql): Promise<void> {
  const [book] = await db`insert into public.content_source (name, is_published)
    values ('Stream Bench Book', true) returning id`;
  const counts = {
    trait: 300,
    ...Object.fromEntries(TYPES.map((t) => [t.replace("-", "_"), ROWS])),
  };
  await loadCorpus(db, new CorpusGenerator(20261123), counts, () => Number(book!.id));
  // No ANALYZE: a client calls right after rows arrive, before autovacuum has looked at them, and
  // the planner then expects a few hundred rows (find_content.ts says what the find does about it).
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padStart(widths[i]!)).join("  ")).join("\n");
}
