/** What one load run measured; latencies in milliseconds. */
export interface LoadResult {
  label: string;
  concurrency: number;
  seconds: number;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** A few of the errors, for the report. */
  samples: string[];
}

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
/** Requests per token in a row (a key's budget is 120 a minute, a token's 240). */
const USES_PER_TOKEN = 100;
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
  // The warm-up and the measured run spend tokens of their own, in proportion to their length.
  const { tokens } = target;
  const split = tokens.length < 2
    ? 0
    : Math.ceil(tokens.length * warmupSeconds / (warmupSeconds + seconds));
  const warmupFile = await tokensFile(split > 0 ? tokens.slice(0, split) : tokens);
  const runFile = await tokensFile(split > 0 ? tokens.slice(split) : tokens);
  try {
    if (warmupSeconds > 0) await wrk(target, warmupFile, concurrency, warmupSeconds);
    around.before();
    const out = await wrk(target, runFile, concurrency, seconds);
    around.after();
    return out;
  } finally {
    await Deno.remove(warmupFile).catch(() => {});
    await Deno.remove(runFile).catch(() => {});
  }
}

async function tokensFile(tokens: readonly string[]): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".tokens" });
  await Deno.writeTextFile(path, tokens.join("\n") + "\n");
  return path;
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
      String(USES_PER_TOKEN),
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
    p99: r.p99_us / 1000,
    max: r.max_us / 1000,
    samples: r.sample ? [r.sample] : [],
  };
}

/** CPU seconds (user + system) a process has used, from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

const CLOCK_TICKS = 100;

/** Processes whose command line contains every given word (Postgres backends name their database). */
export function processesMatching(...words: string[]): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const command = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      if (words.every((w) => command.includes(w))) pids.push(Number(entry.name));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}
