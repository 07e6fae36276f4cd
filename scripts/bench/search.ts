/**
 * The search benchmark: `deno task bench:search` (`--smoke` for a small, quick run; `--rows N`,
 * `--seed N`, `--requests N`). On a database of its own on the Postgres of DATABASE_URL (dropped at
 * the end) it loads a generated corpus (`corpus.ts`), starts the local server with every function
 * and prints search-data's latency and throughput, the advanced statements timed in the database
 * with and without the trigram indexes, and typo recall. docs/search.md describes the method.
 */
import postgres from "postgres";
import { parseArgs } from "node:util";
import { SearchDataBody } from "@shared/search.ts";
import { advancedStatement } from "../../supabase/functions/_shared/search/advanced_search.ts";
import { parseContainsFilter } from "../../supabase/functions/_shared/search/query_syntax.ts";
import { ident, SEARCH_TABLES } from "../../supabase/functions/_shared/search/search_tables.ts";
import { freshDatabase } from "../support/fresh_database.ts";
import { useRunSecrets } from "../support/run_secrets.ts";
import { REQUEST_ROLES } from "../../supabase/functions/_shared/db/request_roles.ts";
import {
  BROAD_WORDS,
  CorpusGenerator,
  type CorpusTable,
  loadCorpus,
  Random,
  TOPIC_WORDS,
} from "./corpus.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    rows: { type: "string" },
    seed: { type: "string", default: "20261122" },
    requests: { type: "string" },
  },
});
const smoke = args.smoke;
const totalRows = Number(args.rows ?? (smoke ? 3_000 : 100_000));
const seed = Number(args.seed);
const requestsPerCell = Number(args.requests ?? (smoke ? 40 : 400));
const recallSample = smoke ? 50 : 200;
const scanSample = smoke ? 12 : 60;
const serverUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TOKEN_EVERY = 200;
const BENCH_EMAIL = "bench@example.test";

/** The corpus tables in the order the query sets are drawn from. */
const TABLES = ("ability_block ancestry archetype background class creature hazard item " +
  "language spell trait versatile_heritage class_archetype").split(" ") as CorpusTable[];
const searchTable = (table: string) => SEARCH_TABLES.find((t) => t.table === table)!;

/** A loaded row the query sets are drawn from; `visible` when search finds it by default. */
interface Loaded {
  table: CorpusTable;
  id: number;
  name: string;
  description: string | null;
  visible: boolean;
}
const log = (message: string) => console.error(`[bench:search] ${message}`);

/** Generates and loads the corpus; returns the bench user's id and the rows loaded. */
async function load(url: string): Promise<{ rows: Loaded[]; userId: string }> {
  const db = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [user] = await db<{ id: string }[]>`
      insert into auth.users (id, email) values (gen_random_uuid(), ${BENCH_EMAIL})
      returning id::text as id`;
    const source = async (name: string, published: boolean, owner: string | null = null) =>
      Number(
        (await db`insert into public.content_source (name, is_published, user_id)
        values (${name}, ${published}, ${owner}) returning id`)[0]?.id,
      );
    const official: number[] = [];
    for (let i = 1; i <= 8; i++) official.push(await source(`Bench Book ${i}`, true));
    const draft = await source("Bench Draft", false);
    const homebrew = await source("Someone Else's Homebrew", false, user!.id);
    const random = new Random(seed ^ 0x5eed);
    // 90% in published official books; the rest hidden by default (draft, someone's homebrew).
    const sourceOf = () => {
      const x = random.next();
      return x < 0.9 ? random.pick(official) : x < 0.95 ? draft : homebrew;
    };
    const counts = CorpusGenerator.counts(totalRows);
    const loaded = await loadCorpus(db, new CorpusGenerator(seed), counts, sourceOf);
    await db.unsafe("vacuum analyze");
    const rows = TABLES.flatMap((table) =>
      (loaded.get(table) ?? []).map(({ row, id }) => ({
        table,
        id,
        name: String(row.name),
        description: typeof row.description === "string" ? row.description : null,
        visible: official.includes(Number(row.content_source_id)),
      }))
    );
    return { rows, userId: user!.id };
  } finally {
    await db.end();
  }
}

/** One edit: insert a letter, delete a character, or swap two neighbours. */
function typo(name: string, kind: "insert" | "delete" | "swap", random: Random): string | null {
  for (let attempt = 0; attempt < 10; attempt++) {
    const at = random.int(0, name.length - 1);
    let edited: string;
    if (kind === "insert") {
      edited = name.slice(0, at) + random.pick([..."abcdefghijklmnopqrstuvwxyz"]) + name.slice(at);
    } else if (kind === "delete") edited = name.slice(0, at) + name.slice(at + 1);
    else if (at >= name.length - 1) continue;
    else edited = name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2);
    if (edited.toLowerCase() !== name.toLowerCase() && edited.trim().length >= 2) return edited;
  }
  return null;
}

type Advanced = { body: SearchDataBody; kind: "name" | "word" | "phrase" };

/** The query sets, drawn deterministically from the visible rows. */
function querySets(rows: Loaded[]) {
  const random = new Random(seed + 1);
  const visible = rows.filter((r) => r.visible);
  const simple: SearchDataBody[] = [];
  for (let i = 0; i < 300; i++) {
    const row = random.pick(visible);
    const x = random.next();
    if (x < 0.4) simple.push({ text: row.name });
    else if (x < 0.7) {
      simple.push({ text: row.name.split(" ").slice(0, random.int(1, 2)).join(" ") });
    } else {
      // A topic word or two, as a person would search descriptions for.
      const n = random.int(1, 2);
      simple.push({ text: Array.from({ length: n }, () => random.pick(TOPIC_WORDS)).join(" ") });
    }
  }
  const kinds = ["insert", "delete", "swap"] as const;
  const typos: { body: SearchDataBody; row: Loaded; kind: string }[] = [];
  while (typos.length < recallSample) {
    const row = random.pick(visible);
    const kind = kinds[typos.length % 3]!;
    const text = typo(row.name, kind, random);
    if (text) typos.push({ body: { text }, row, kind });
  }
  const advanced: Advanced[] = [];
  const named = visible.filter((r) => searchTable(r.table).type !== null);
  const searchable = named.filter((r) => r.description !== null);
  for (let i = 0; i < 300; i++) {
    const byName = random.chance(0.5);
    const row = random.pick(byName ? named : searchable);
    const body: SearchDataBody = { is_advanced: true, type: searchTable(row.table).type! };
    let kind: Advanced["kind"] = "name";
    if (byName || row.description === null) {
      const word = random.pick(row.name.split(/[ ']/).filter((w) => w.length >= 4));
      if (!word) continue;
      const start = random.int(0, Math.max(0, word.length - 4));
      body.name = word.slice(start, start + random.int(4, 6)).toLowerCase();
    } else if (random.chance(0.5)) {
      kind = "word";
      body.description = random.pick(TOPIC_WORDS);
    } else {
      kind = "phrase";
      // Two neighbouring words of a real description, as a phrase.
      const pairs = row.description.toLowerCase().match(/[a-z]{4,} [a-z]{4,}/g) ?? [];
      body.description = `"${random.pick(pairs.length > 0 ? pairs : ["bone ash"])}"`;
    }
    if (random.chance(0.3) && row.table === "spell") {
      body.rank_min = random.int(0, 5);
      body.rank_max = body.rank_min + random.int(0, 5);
    }
    if (random.chance(0.3) && ["item", "ability_block", "creature"].includes(row.table)) {
      body.level_min = random.int(0, 10);
      body.level_max = body.level_min + random.int(0, 10);
    }
    if (random.chance(0.2) && row.table !== "trait") body.rarity = "COMMON";
    advanced.push({ body, kind });
  }
  const broad = Array.from({ length: 50 }, () => ({ text: random.pick(BROAD_WORDS) }));
  return { simple, broad, typos, advanced };
}

/** Latency and throughput of one (query set, concurrency) cell. */
type Cell = { latencies: number[]; rps: number; failures: number };

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function main(): Promise<void> {
  const started = performance.now();
  const database = await freshDatabase(serverUrl, "rpgbench");
  log(`corpus of ${totalRows} rows, seed ${seed}${smoke ? " (smoke)" : ""}`);
  Deno.env.set("DATABASE_URL", database.url);
  Deno.env.set("LOG_LEVEL", "silent");
  Deno.env.set("RATE_LIMIT_PREFIX", `bench-${crypto.randomUUID()}`);
  // Configured as deployed: no local development, secrets of its own, which it signs tokens with.
  Deno.env.set("LOCAL_DEVELOPMENT", "0");
  useRunSecrets();
  const { startServer } = await import("../server/server.ts");
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    server = await startServer({ port: 0, dataDir: null });
    const loadStart = performance.now();
    const { rows, userId } = await load(database.url);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    log(`loaded ${rows.length} rows in ${loadSeconds.toFixed(1)} s`);

    const { signLocalAccessToken } = await import("../support/local_tokens.ts");
    let issued = 0;
    let token = "";
    const url = `${server.functionsUrl}/search-data`;
    const send = async (body: SearchDataBody) => {
      if (issued++ % TOKEN_EVERY === 0) token = await signLocalAccessToken(userId, BENCH_EMAIL);
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return await res.json() as { status: string; data: Record<string, { id: number }[]> };
    };

    const sets = querySets(rows);
    const run = async (bodies: SearchDataBody[], concurrency: number): Promise<Cell> => {
      for (const body of bodies.slice(0, 10)) await send(body);
      const latencies: number[] = [];
      let next = 0;
      let failures = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < requestsPerCell) {
          const body = bodies[next++ % bodies.length] ?? {};
          const begin = performance.now();
          const answer = await send(body);
          latencies.push(performance.now() - begin);
          if (answer.status !== "success") failures++;
        }
      }));
      return { latencies, rps: latencies.length / ((performance.now() - t0) / 1000), failures };
    };
    const cells: [string, number, Cell][] = [];
    for (
      const [label, bodies, levels] of [
        ["simple", sets.simple, [1, 16]],
        ["typo", sets.typos.map((t) => t.body), [1, 16]],
        ["advanced", sets.advanced.map((a) => a.body), [1, 16]],
        ["broad-word", sets.broad, [1]],
      ] as const
    ) {
      for (const concurrency of levels) {
        log(`measuring ${label} at concurrency ${concurrency}`);
        cells.push([label, concurrency, await run(bodies, concurrency)]);
      }
    }

    log("timing advanced statements with and without the trigram indexes");
    const scan = await compareScans(database.url, userId, sets.advanced.slice(0, scanSample));

    log("measuring typo recall");
    const recall = new Map<string, [number, number]>();
    for (const t of sets.typos) {
      const answer = await send(t.body);
      const bucket = searchTable(t.row.table).bucket;
      const hit = (answer.data?.[bucket] ?? []).slice(0, 5).some((r) => r.id === t.row.id);
      const [h, n] = recall.get(t.kind) ?? [0, 0];
      recall.set(t.kind, [h + (hit ? 1 : 0), n + 1]);
    }

    printReport(cells, scan, recall, loadSeconds, rows.length, started);
    if (cells.some(([, , c]) => c.failures > 0)) {
      log("some requests did not succeed");
      Deno.exitCode = 1;
    }
  } finally {
    await server?.close();
    await database.drop();
  }
}

/** Milliseconds with the trigram indexes, and as a sequential scan. */
type Timing = { indexed: number; scanned: number };

/**
 * One advanced query timed in the database: what its filter was on (a name part, a description
 * word or phrase), the rows it matched, the filter alone (the ids private.search_matching_ids
 * finds), and the whole advanced statement against the plain ILIKE statement.
 */
type Scanned = { kind: string; matches: number; filter: Timing; statement: Timing };

/** Runs each advanced statement as the bench user: with indexes, then with only sequential scans. */
async function compareScans(url: string, userId: string, queries: Advanced[]) {
  const db = postgres(url, { max: 1, onnotice: () => {} });
  const claims = JSON.stringify({ sub: userId, role: "authenticated" });
  // Best of five for both sides: other work on the machine only ever adds time.
  const time = async (text: string, values: unknown[], sequential: boolean) => {
    let best = { ms: Infinity, rows: 0 };
    for (let i = 0; i < 5; i++) {
      const run = await db.begin(async (tx) => {
        await tx`select set_config('role', ${REQUEST_ROLES.authenticated}, true),
                        set_config('request.jwt.claims', ${claims}, true)`;
        if (sequential) {
          await tx`set local enable_bitmapscan = off`;
          await tx`set local enable_indexscan = off`;
        }
        const [row] = await tx.unsafe(
          `explain (analyze, timing off, format json) ${text}`,
          values as never[],
        );
        const plan = (row?.["QUERY PLAN"] as {
          "Planning Time": number;
          "Execution Time": number;
          Plan: { "Actual Rows": number };
        }[])[0];
        return {
          ms: (plan?.["Planning Time"] ?? 0) + (plan?.["Execution Time"] ?? 0),
          rows: plan?.Plan["Actual Rows"] ?? 0,
        };
      });
      if (run.ms < best.ms) best = run;
    }
    return best;
  };
  const scans: Scanned[] = [];
  try {
    for (const query of queries) {
      const body = SearchDataBody.parse(query.body);
      const table = SEARCH_TABLES.find((t) => t.type === body.type);
      const column = body.name ? "name" : "description";
      const patterns = parseContainsFilter(body.name ?? body.description ?? "");
      const statement = advancedStatement(body);
      if (!table || !patterns || !statement) continue;
      // The same filters as a plain ILIKE statement; run with index and bitmap scans off.
      const plain = withoutPrefilter(statement, `t.${ident(column)}`);
      const filterText = `select m.id from private.search_matching_ids(
        $1::text, $2::text, $3::text[], $4::text[]) m(id)`;
      const filterValues = [table.table, column, patterns.all, patterns.any];
      const filterIndexed = await time(filterText, filterValues, false);
      const filterScanned = await time(filterText, filterValues, true);
      const statementIndexed = await time(statement.text, statement.values, false);
      const statementScanned = await time(plain.text, plain.values, true);
      if (statementScanned.rows !== statementIndexed.rows) {
        throw new Error(
          `The plain statement found ${statementScanned.rows} rows, the endpoint's ` +
            `${statementIndexed.rows}, for ${JSON.stringify(query.body)}`,
        );
      }
      scans.push({
        kind: query.kind,
        matches: filterIndexed.rows,
        filter: { indexed: filterIndexed.ms, scanned: filterScanned.ms },
        statement: { indexed: statementIndexed.ms, scanned: statementScanned.ms },
      });
    }
  } finally {
    await db.end();
  }
  return scans;
}

/**
 * The statement a direct implementation would run: the endpoint's, with its trigram prefilter
 * (`t.id in (select ... private.search_matching_ids(table, column, all, any, sources))`) replaced by
 * the same patterns as ILIKE conditions on the column (`ref`), bound to the same values (less the
 * table's and the column's names and the sources, which only the prefilter takes).
 */
function withoutPrefilter(
  statement: { text: string; values: unknown[] },
  ref: string,
): { text: string; values: unknown[] } {
  const prefilter = new RegExp(
    String.raw`t\.id in \(select m\.id from private\.search_matching_ids\(\s*\$(\d+)::text,\s*` +
      String.raw`\$(\d+)::text,\s*\$(\d+)::text\[\],\s*\$(\d+)::text\[\],\s*` +
      String.raw`\$(\d+)::bigint\[\]\) m\(id\)\)`,
  );
  const match = prefilter.exec(statement.text);
  if (!match || statement.text.slice(match.index + match[0].length).includes("matching_ids(")) {
    throw new Error(`Not one trigram prefilter in the statement:\n${statement.text}`);
  }
  const [, table, column, all, any, sources] = match.map(Number);
  const dropped = [table!, column!, sources!];
  const renumbered = (n: number) => `$${n - dropped.filter((d) => d < n).length}`;
  const conditions = `(${ref} ilike all (${renumbered(all!)}::text[]) and ` +
    `(cardinality(${renumbered(any!)}::text[]) = 0 or ` +
    `${ref} ilike any (${renumbered(any!)}::text[])))`;
  const text = statement.text.slice(0, match.index) + "\0" +
    statement.text.slice(match.index + match[0].length);
  return {
    text: text.replace(/\$(\d+)/g, (_, n) => renumbered(Number(n))).replace("\0", conditions),
    values: statement.values.filter((_, i) => !dropped.includes(i + 1)),
  };
}

function printReport(
  cells: [string, number, Cell][],
  scans: Scanned[],
  recall: Map<string, [number, number]>,
  loadSeconds: number,
  rows: number,
  started: number,
): void {
  const fmt = (n: number, digits = 1) => n.toFixed(digits);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const lines: string[] = [];
  const row = (...cells: (string | number)[]) => lines.push(`| ${cells.join(" | ")} |`);
  const latency = (xs: number[], digits: number) =>
    [50, 95, 99].map((p) => fmt(percentile(xs, p), digits));
  row("measure", "concurrency", "requests", "p50 ms", "p95 ms", "p99 ms", "req/s");
  row("---", "---:", "---:", "---:", "---:", "---:", "---:");
  for (const [label, concurrency, { latencies, rps }] of cells) {
    row(
      `search-data, ${label} queries`,
      concurrency,
      latencies.length,
      ...latency(latencies, 1),
      fmt(rps, 0),
    );
  }
  const timed = (label: string, what: "filter" | "statement", side: keyof Timing) =>
    row(label, 1, scans.length, ...latency(scans.map((s) => s[what][side]), 2), "");
  // Scan time over index time, per query (of one kind, if given) and overall.
  const ratios = (what: "filter" | "statement", kind?: string) =>
    scans.filter((s) => kind === undefined || s.kind === kind)
      .map((s) => s[what].scanned / Math.max(s[what].indexed, 0.001));
  const overall = (what: "filter" | "statement") =>
    sum(scans.map((s) => s[what].scanned)) /
    Math.max(sum(scans.map((s) => s[what].indexed)), 0.001);
  const compared = (what: "filter" | "statement") => {
    const byKind = ["name", "word", "phrase"]
      .map((k) => `${k} ${fmt(percentile(ratios(what, k), 50))}x`).join(", ");
    row(
      `${what}: scan time / index time (median by filter: ${byKind})`,
      "",
      scans.length,
      `${fmt(percentile(ratios(what), 50))}x median`,
      `${fmt(percentile(ratios(what), 5))}x p5`,
      `${fmt(overall(what))}x overall`,
      "",
    );
  };
  const medianMatches = percentile(scans.map((s) => s.matches), 50);
  timed(
    `advanced text filter, trigram index (median ${medianMatches} matching rows)`,
    "filter",
    "indexed",
  );
  timed("same filter, plain ILIKE sequential scan", "filter", "scanned");
  compared("filter");
  timed("whole advanced statement, indexed", "statement", "indexed");
  timed("whole plain statement, sequential scan", "statement", "scanned");
  compared("statement");
  const totalRatio = overall("filter");
  const [hits, total] = [...recall.values()].reduce(([h, n], [a, b]) => [h + a, n + b], [0, 0]);
  const recallRate = hits / Math.max(total, 1);
  const kinds = [...recall].map(([k, [h, n]]) => `${k} ${h}/${n}`).join(", ");
  row(`typo recall, record in top 5 (${kinds})`, 1, total, `${fmt(recallRate * 100)}%`, "", "", "");

  const simple1 = cells.find(([l, c]) => l === "simple" && c === 1)?.[2].latencies;
  const simpleP95 = simple1 ? percentile(simple1, 95) : Infinity;
  const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
  const load = Deno.loadavg().map((x) => fmt(x, 2)).join(" ");
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\nsearch-data benchmark: ${rows} rows (seed ${seed}), loaded in ${fmt(loadSeconds)} s; ` +
      `whole run ${fmt(seconds)} s; ${navigator.hardwareConcurrency} CPUs, load average ${load}\n`,
  );
  console.log(lines.join("\n"));
  console.log(
    `\ntargets: simple p95 at concurrency 1 <= 50 ms: ${fmt(simple1 ? simpleP95 : 0)} ms, ${
      verdict(simpleP95 <= 50)
    }; advanced text filters >= 10x faster than the scan: ${fmt(totalRatio)}x overall, ${
      verdict(totalRatio >= 10)
    }; typo recall >= 90%: ${fmt(recallRate * 100)}%, ${verdict(recallRate >= 0.9)}`,
  );
}

if (import.meta.main) await main();
