import type postgres from "postgres";
import { createAccount } from "../support/accounts.ts";
import { type LoadResult, runLoad, type Shot } from "./run_load.ts";

/**
 * Adds `count` content sources owned by one new user, in the shares of a large homebrew
 * community: a tenth published, a fiftieth published behind an access key, the rest private.
 * None of them is readable by the benchmark's own accounts except the published ones without a
 * key, so a read policy that weighs every source shows as a slower read, not as a bigger answer.
 * Direct SQL as the admin connection: with no signed-in user the owner named here stands.
 */
export async function addSources(sql: postgres.Sql, count: number): Promise<void> {
  const owner = await createAccount(sql, 2);
  const published = Math.round(count / 10);
  const locked = Math.round(count / 50);
  await sql`
    insert into public.content_source (name, user_id, is_published, require_key, keys)
    select 'bench source ' || n, ${owner.user_id}::uuid,
      n <= ${published + locked},
      n > ${published} and n <= ${published + locked},
      case when n > ${published} and n <= ${published + locked}
        then jsonb_build_object('access_key', 'access key ' || n) end
    from generate_series(1, ${count}::int) n`;
  // Vacuumed now so autovacuum does not pick the new rows up in the middle of a measured run.
  await sql`vacuum analyze public.content_source`;
}

/** What the sources mode needs from the load benchmark. */
export interface SourcesRun {
  sql: postgres.Sql;
  count: number;
  levels: number[];
  seconds: number;
  warmup: number;
  /** The reads to compare: each is run before and after the sources are added. */
  scenarios: [string, Shot][];
  line: (result: LoadResult) => string;
}

/**
 * The sources mode of the load benchmark: the given reads at every concurrency on the usual data,
 * then the same after adding `count` sources, and how much of its throughput and p50 each kept.
 * Returns whether every target was met (reads within 10%) and whether any request failed.
 */
export async function compareWithSources(run: SourcesRun): Promise<
  { met: boolean; errors: number }
> {
  const measureAll = async (when: string) => {
    const results: LoadResult[] = [];
    for (const concurrency of run.levels) {
      for (const [label, shot] of run.scenarios) {
        const result = await runLoad(label, concurrency, run.seconds, shot, run.warmup);
        results.push(result);
        console.error(`${when}: ${run.line(result)}`);
      }
    }
    return results;
  };
  const without = await measureAll("without");
  const started = performance.now();
  await addSources(run.sql, run.count);
  console.error(
    `added ${run.count} sources in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const withSources = await measureAll(`with ${run.count}`);

  const out = [
    `Sources mode: ${run.seconds} s per run, ${run.count} extra sources ` +
    `(a tenth published, a fiftieth key-locked, the rest private; all another user's)`,
    "",
    "| Scenario | Concurrency | req/s without | p50 ms without | req/s with | p50 ms with | " +
    "throughput kept | p50 with/without |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  const targets: [string, boolean][] = [];
  without.forEach((before, i) => {
    const after = withSources[i]!;
    const kept = after.rps / before.rps;
    const slower = after.p50 / before.p50;
    out.push(
      `| ${before.label} | ${before.concurrency} | ${before.rps.toFixed(0)} | ` +
        `${before.p50.toFixed(1)} | ${after.rps.toFixed(0)} | ${after.p50.toFixed(1)} | ` +
        `${(kept * 100).toFixed(0)}% | x${slower.toFixed(2)} |`,
    );
    targets.push([
      `${before.label} at c=${before.concurrency} keeps throughput and p50 within 10%`,
      kept >= 0.9 && slower <= 1.1,
    ]);
  });
  const errors = [...without, ...withSources].reduce((n, r) => n + r.errors, 0);
  targets.push([`no errors in any run (${errors})`, errors === 0]);
  out.push("");
  for (const [what, met] of targets) out.push(`${met ? "MET " : "MISSED"}  ${what}`);
  console.log(out.join("\n"));
  return { met: targets.every(([, met]) => met), errors };
}
