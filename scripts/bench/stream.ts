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
import { parseArgs } from "node:util";
import { createAccount } from "../support/accounts.ts";
import { freshDatabase } from "../support/fresh_database.ts";
import { ServerProcess } from "../support/server_process.ts";
import { findStatement } from "../../supabase/functions/_shared/content/find_content.ts";
import { contentTypes } from "@shared/content_types.ts";
import { contentTable } from "../../supabase/functions/_shared/content/tables.ts";
import { CorpusGenerator, type CorpusRow, resolveTraits } from "./corpus.ts";

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
const TABLES = { "ability-block": "ability_block", spell: "spell", item: "item" } as const;

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
  const claims = JSON.parse(
    atob(account.token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")),
  );

  const header = [
    "endpoint",
    "rows",
    "body MB",
    "first byte ms (2nd call)",
    "total ms",
    "RSS +MB",
    "json_agg ms",
    "total/json_agg",
  ];
  const lines: string[][] = [];
  let failures = 0;
  for (const type of TYPES) {
    const api: Served[] = [];
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

interface Served {
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  rows: number;
  rssGrowthKb: number;
}

/** One find over HTTP, read as it streams; the server's RSS is sampled while it serves. */
async function serve(server: ServerProcess, fn: string, token: string): Promise<Served> {
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
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  let firstByteMs = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes === 0) firstByteMs = performance.now() - started;
    chunks.push(value);
    bytes += value.length;
  }
  const totalMs = performance.now() - started;
  sampling = false;
  await sampler;
  const text = new TextDecoder().decode(concat(chunks, bytes));
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
async function jsonAgg(
  db: postgres.Sql,
  type: (typeof TYPES)[number],
  claims: unknown,
): Promise<{ ms: number; rows: number }> {
  const { text: query, params } = findStatement(contentTable(contentTypes[type]), {});
  return await db.begin(async (tx) => {
    await tx`select private.begin_request('authenticated', ${JSON.stringify(claims)})`;
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
  const generator = new CorpusGenerator(20261123);
  await db`set session_replication_role = replica`;
  const [book] = await db`insert into public.content_source (name, is_published)
    values ('Stream Bench Book', true) returning id`;
  const traits = await insert(db, "trait", 300, () => generator.row("trait"), Number(book?.id), []);
  for (const type of TYPES) {
    const table = TABLES[type];
    await insert(db, table, ROWS, () => generator.row(table), Number(book?.id), traits);
  }
  await db`reset session_replication_role`;
  // No ANALYZE: a client calls right after rows arrive, before autovacuum has looked at them, and
  // the planner then expects a few hundred rows (find_content.ts says what the find does about it).
}

async function insert(
  db: postgres.Sql,
  table: string,
  count: number,
  row: () => CorpusRow,
  sourceId: number,
  traitIds: number[],
): Promise<number[]> {
  const ids: number[] = [];
  for (let done = 0; done < count; done += 2_000) {
    const batch = Array.from(
      { length: Math.min(2_000, count - done) },
      () => ({ ...resolveTraits(row(), traitIds), content_source_id: sourceId }),
    );
    const columns = Object.keys(batch[0] ?? {}).map((c) => `"${c}"`).join(", ");
    const inserted = await db.unsafe(
      `insert into public."${table}" (${columns})
       select ${columns} from jsonb_populate_recordset(null::public."${table}", $1::jsonb)
       returning id`,
      [batch as never],
    );
    for (const r of inserted) ids.push(Number(r.id));
  }
  return ids;
}

function concat(chunks: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padStart(widths[i]!)).join("  ")).join("\n");
}
