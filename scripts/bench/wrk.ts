import type { LoadResult } from "./run_load.ts";

/** Whether the `wrk` load generator is installed (Debian package `wrk`). */
export async function haveWrk(): Promise<boolean> {
  try {
    await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

/** What one `wrk` run is: where it POSTs, with which tokens (rotated per request), what body. */
export interface WrkTarget {
  label: string;
  url: string;
  /** Bearer tokens, used round robin, one per request. */
  tokens: readonly string[];
  body: unknown;
  /** How the body of every successful answer begins. */
  expected: string;
}

const THREADS = 2;
const SCRIPT = new URL("./wrk_post.lua", import.meta.url).pathname;

/**
 * Drives `target` with `wrk` (a C load generator, so the load costs the two cores little) at
 * `concurrency` connections for `seconds`, after an unmeasured warm-up run; `around` is called
 * just before and just after the measured run (for CPU counters).
 */
export async function wrkLoad(
  target: WrkTarget,
  concurrency: number,
  seconds: number,
  warmupSeconds: number,
  around: { before: () => void; after: () => void } = { before() {}, after() {} },
): Promise<LoadResult> {
  const tokensFile = await Deno.makeTempFile({ suffix: ".tokens" });
  try {
    await Deno.writeTextFile(tokensFile, target.tokens.join("\n") + "\n");
    if (warmupSeconds > 0) await wrk(target, tokensFile, concurrency, warmupSeconds);
    around.before();
    const out = await wrk(target, tokensFile, concurrency, seconds);
    around.after();
    return out;
  } finally {
    await Deno.remove(tokensFile).catch(() => {});
  }
}

async function wrk(
  target: WrkTarget,
  tokensFile: string,
  concurrency: number,
  seconds: number,
): Promise<LoadResult> {
  const { stdout, stderr } = await new Deno.Command("wrk", {
    args: [
      `-t${THREADS}`,
      `-c${concurrency}`,
      `-d${Math.max(1, Math.round(seconds))}s`,
      "--timeout",
      "10s",
      "-s",
      SCRIPT,
      target.url,
      "--",
      tokensFile,
      JSON.stringify(target.body),
      target.expected,
      String(THREADS),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  const line = /^WRK_RESULT (.*)$/m.exec(text)?.[1];
  if (!line) {
    throw new Error(`wrk printed no result:\n${text}\n${new TextDecoder().decode(stderr)}`);
  }
  const r = JSON.parse(line) as {
    requests: number;
    duration_us: number;
    p50_us: number;
    p99_us: number;
    max_us: number;
    bad: number;
    socket_errors: number;
    sample: string;
  };
  const elapsed = r.duration_us / 1e6;
  return {
    label: target.label,
    concurrency,
    seconds: elapsed,
    requests: r.requests,
    errors: r.bad + r.socket_errors,
    rps: r.requests / elapsed,
    p50: r.p50_us / 1000,
    p95: Number.NaN,
    p99: r.p99_us / 1000,
    max: r.max_us / 1000,
    samples: r.sample ? [r.sample] : [],
  };
}
