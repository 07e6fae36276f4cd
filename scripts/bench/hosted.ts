/**
 * `deno task bench:hosted`: the emulated hosted shape (scripts/hosted/) measured as a client sees
 * it: for a few request kinds, the first call (the function's instance starts on it: a process of
 * the platform's Deno, its modules, its pool's first connection; where it did, the times from the
 * process's spawn to its first listening and to that first answer) and then warm calls, p50 and p99,
 * with the database round trips and bytes of a warm call. Latency is injected as across a network:
 * each round trip to the pooler waits `--db-ms` (2) and each limiter answer `--limiter-ms` (5), and
 * the floor column is what that latency alone costs a warm call: the larger of the limiter call and
 * the database round trips where the two overlap (reads), their sum where the write waits for the
 * budget before it starts (a write of one round trip). The last column is p50 over the floor.
 *
 *   deno task bench:hosted [--calls 50] [--db-ms 2] [--limiter-ms 5]
 */
import { parseArgs } from "node:util";
import { startHostedEmulation } from "../hosted/emulation.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "50" },
    "db-ms": { type: "string", default: "2" },
    "limiter-ms": { type: "string", default: "5" },
  },
}).values;
const calls = Number(args.calls);
const databaseMs = Number(args["db-ms"]);
const limiterMs = Number(args["limiter-ms"]);

const emulation = await startHostedEmulation({
  redisUrl: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
  latency: { databaseMs, limiterMs },
  verbose: Deno.env.get("BENCH_VERBOSE") === "1",
});
try {
  const { token } = await emulation.signUp("bench-hosted@example.test");
  interface Kind {
    label: string;
    fn: string;
    body: () => unknown;
    auth: Record<string, string>;
    /** The limiter and the database one after the other (a write of one round trip). */
    sequential?: boolean;
  }
  const kinds: Kind[] = [
    {
      label: "find-spell by id, publishable key",
      fn: "find-spell",
      body: () => ({ id: 1 }),
      auth: { apikey: emulation.publishableKey },
    },
    {
      label: "find-spell by id, session (ES256)",
      fn: "find-spell",
      body: () => ({ id: 1 }),
      auth: { authorization: `Bearer ${token}` },
    },
    {
      label: "search-data, session",
      fn: "search-data",
      body: () => ({ text: "fire" }),
      auth: { authorization: `Bearer ${token}` },
    },
    {
      label: "create-character, session",
      fn: "create-character",
      body: () => ({ name: "Bench" }),
      auth: { authorization: `Bearer ${token}` },
      sequential: true,
    },
  ];
  const rows: string[][] = [[
    "request",
    "first call ms",
    "instance start: listening / answered ms",
    "warm p50 ms",
    "warm p99 ms",
    "db round trips",
    "bytes out / in",
    "floor ms",
    "p50 / floor",
  ]];
  let address = 0;
  for (const kind of kinds) {
    const once = async () => {
      const started = performance.now();
      const res = await fetch(`${emulation.functionsUrl}/${kind.fn}`, {
        method: "POST",
        headers: { ...kind.auth, "x-forwarded-for": `198.51.100.${(address++ % 250) + 1}` },
        body: JSON.stringify(kind.body()),
      });
      const body = await res.json();
      if (res.status !== 200 || body.status !== "success") {
        throw new Error(`${kind.label}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      }
      return performance.now() - started;
    };
    const startsBefore = emulation.gateway.starts.get(kind.fn) ?? 0;
    const first = await once();
    const answered = performance.now();
    const times = emulation.gateway.startTimes.get(kind.fn);
    const cold = (emulation.gateway.starts.get(kind.fn) ?? 0) > startsBefore && times?.listening
      ? `${(times.listening - times.spawned).toFixed(0)} / ${(answered - times.spawned).toFixed(0)}`
      : "-";
    const warm: number[] = [];
    // A character account may hold a few characters only: creates stop at the cap.
    const count = kind.fn === "create-character" ? 4 : calls;
    emulation.database.take();
    warm.push(await once());
    const trips = emulation.database.take();
    for (let i = 1; i < count; i++) warm.push(await once());
    warm.sort((a, b) => a - b);
    const at = (q: number) => warm[Math.min(warm.length - 1, Math.floor(q * warm.length))]!;
    const databaseFloor = trips.roundTrips * databaseMs;
    const floor = kind.sequential ? limiterMs + databaseFloor : Math.max(limiterMs, databaseFloor);
    rows.push([
      kind.label,
      first.toFixed(0),
      cold,
      at(0.5).toFixed(1),
      at(0.99).toFixed(1),
      String(trips.roundTrips),
      `${trips.bytesOut} / ${trips.bytesIn}`,
      floor.toFixed(0),
      floor > 0 ? `${(at(0.5) / floor).toFixed(1)}x` : "-",
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  console.log(rows.map((r) => r.map((c, i) => c.padStart(widths[i]!)).join("  ")).join("\n"));
  console.log(
    `\nLimit breaches during the run: ${emulation.gateway.breaches.length || "none"}` +
      ` (${[...emulation.gateway.starts.keys()].length} function instances started)`,
  );
} finally {
  await emulation.close();
}
