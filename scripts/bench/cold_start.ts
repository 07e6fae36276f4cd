/**
 * `deno task bench:cold-start`: how long a function's instance takes to answer its first request
 * on the emulated hosted platform (scripts/hosted/): the gateway spawns the platform's Deno for the
 * function alone, as the platform starts an instance because a request waits. For each function,
 * `--runs` times: its instance is stopped, then called; printed are the median and the lowest of
 * the time from the spawn to its listening and to its first answer, and of the first call as the
 * client saw it. The pooler and the limiter are warmed first, so what is timed is the instance.
 *
 *   deno task bench:cold-start [--runs 7] [--functions find-spell,create-character]
 */
import { parseArgs } from "node:util";
import postgres from "postgres";
import { startHostedEmulation } from "../hosted/emulation.ts";
import { loopbackClients } from "../support/loopback_clients.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "7" },
    functions: {
      type: "string",
      default: "find-spell,search-data,create-character,get-user,report-client-error",
    },
  },
}).values;
const runs = Number(args.runs);
const names = args.functions.split(",");

const emulation = await startHostedEmulation({
  redisUrl: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
  verbose: Deno.env.get("BENCH_VERBOSE") === "1",
});
// Deletes the characters create-character makes: an account holds a few only.
const owner = postgres(emulation.ownerUrl, { max: 1, onnotice: () => {} });
// Calls come from many client addresses, so no per-address budget runs out during the run.
const addresses = loopbackClients(250);
try {
  const { userId, token } = await emulation.signUp("bench-cold@example.test");
  const bodies: Record<string, () => unknown> = {
    "find-spell": () => ({ id: 1 }),
    "search-data": () => ({ text: "fire" }),
    "create-character": () => ({ name: "Cold" }),
    "get-user": () => ({}),
    "report-client-error": () => ({
      code: "save_failed",
      surface: "sheet",
      release: "0a1b2c3d",
      trace_id: crypto.randomUUID(),
    }),
  };
  const call = async (name: string) => {
    const started = performance.now();
    const res = await fetch(`${emulation.functionsUrl}/${name}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      client: addresses.next(),
      body: JSON.stringify(bodies[name]?.() ?? {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${name}: HTTP ${res.status} ${text.slice(0, 200)}`);
    return performance.now() - started;
  };
  // The pooler's and the limiter's first connections are not the instance's.
  await call("find-spell");
  const rows = [[
    "function",
    "listening ms (median / min)",
    "answered ms",
    "client's first call ms",
  ]];
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  for (const name of names) {
    const listening: number[] = [];
    const answered: number[] = [];
    const client: number[] = [];
    for (let run = 0; run < runs; run++) {
      await emulation.gateway.stopInstance(name);
      const first = await call(name);
      const done = performance.now();
      const times = emulation.gateway.startTimes.get(name)!;
      listening.push(times.listening! - times.spawned);
      answered.push(done - times.spawned);
      client.push(first);
      // A character account holds a few characters only.
      if (name === "create-character") {
        await owner`delete from public.character where user_id = ${userId}`;
      }
    }
    const cell = (values: number[]) =>
      `${median(values).toFixed(0)} / ${Math.min(...values).toFixed(0)}`;
    rows.push([name, cell(listening), cell(answered), cell(client)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  console.log(rows.map((r) => r.map((c, i) => c.padStart(widths[i]!)).join("  ")).join("\n"));
} finally {
  addresses.close();
  await owner.end();
  await emulation.close();
}
