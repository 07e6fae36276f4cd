/** One request of a load run: resolves true for a JSend success, else a description of what came. */
export type Shot = () => Promise<true | string>;

/** What one load run measured. */
export interface LoadResult {
  label: string;
  concurrency: number;
  seconds: number;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** A few of the errors, for the report. */
  samples: string[];
}

/**
 * Runs `shot` from `concurrency` workers in closed loops (each starts its next request when the
 * previous one answers) for `seconds`, after a short unmeasured warm-up, and summarises latency
 * in milliseconds.
 */
export async function runLoad(
  label: string,
  concurrency: number,
  seconds: number,
  shot: Shot,
  warmupSeconds = 1,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const samples: string[] = [];
  let errors = 0;
  let measuring = false;
  let stopping = false;
  const worker = async () => {
    while (!stopping) {
      const started = performance.now();
      let outcome: true | string;
      try {
        outcome = await shot();
      } catch (e) {
        outcome = e instanceof Error ? e.message : String(e);
      }
      const ms = performance.now() - started;
      if (!measuring || stopping) continue;
      latencies.push(ms);
      if (outcome !== true) {
        errors++;
        if (samples.length < 3) samples.push(outcome);
      }
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  await sleep(warmupSeconds * 1000);
  measuring = true;
  const started = performance.now();
  await sleep(seconds * 1000);
  stopping = true;
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(workers);
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    label,
    concurrency,
    seconds: elapsed,
    requests: latencies.length,
    errors,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: latencies.at(-1) ?? 0,
    samples,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
