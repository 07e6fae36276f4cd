/**
 * `deno task bench:hosted`: the emulated hosted shape (scripts/hosted/) measured as a client sees
 * it: for a few request kinds, the first call (the function's instance starts on it: a process of
 * the platform's Deno, its modules, its pool's first connection; where it did, the times from the
 * process's spawn to its first listening and to that first answer), the database round trips and
 * bytes of a warm call, and the warm p50 under four latencies injected as across a network, taking
 * turns call by call: none, `--db-ms` (2) per round trip to the pooler only, `--limiter-ms` (5) per
 * limiter answer only, and both. The last column is the p50 with both over the larger of the two
 * alone: 1.0x when the limiter adds no waiting to the database's (or the database none to the
 * limiter's), 2.0x when a call pays for both, one after the other.
 *
 *   deno task bench:hosted [--calls 50] [--db-ms 2] [--limiter-ms 5]
 *
 * A kind makes 4 x calls + 2 calls in about a minute by one session: up to 59 calls fit its 240.
 */
import { parseArgs } from "node:util";
import { startHostedEmulation } from "../hosted/emulation.ts";
import { loopbackClients } from "../support/loopback_clients.ts";

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
  verbose: Deno.env.get("BENCH_VERBOSE") === "1",
});
// Calls come from many client addresses, so no per-address budget runs out during the run.
const addresses = loopbackClients(250);
try {
  // A user per kind, within a session's budget of 240 a minute; a supporter, whose creates are
  // not stopped by the free tier's cap on characters.
  let users = 0;
  const session = async () => {
    const { token } = await emulation.signUp(`bench-hosted-${++users}@example.test`, 2);
    return { authorization: `Bearer ${token}` };
  };
  interface Kind {
    label: string;
    fn: string;
    body: () => unknown;
    auth: Record<string, string>;
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
      auth: await session(),
    },
    {
      label: "search-data, session",
      fn: "search-data",
      body: () => ({ text: "fire" }),
      auth: await session(),
    },
    {
      label: "create-character, session",
      fn: "create-character",
      body: () => ({ name: "Bench" }),
      auth: await session(),
    },
  ];
  const rows: string[][] = [[
    "request",
    "first call ms",
    "instance start: listening / answered ms",
    "db round trips",
    "bytes out / in",
    "p50 ms: none",
    "db",
    "limiter",
    "both",
    "p99 both",
    "both / larger",
  ]];
  // Warm calls take turns among the four latencies, so the machine's drift meets each alike.
  const settings = [
    { databaseMs: 0, limiterMs: 0 },
    { databaseMs, limiterMs: 0 },
    { databaseMs: 0, limiterMs },
    { databaseMs, limiterMs },
  ];
  for (const kind of kinds) {
    const once = async () => {
      const started = performance.now();
      const res = await fetch(`${emulation.functionsUrl}/${kind.fn}`, {
        method: "POST",
        headers: kind.auth,
        client: addresses.next(),
        body: JSON.stringify(kind.body()),
      });
      const body = await res.json();
      if (res.status !== 200 || body.status !== "success") {
        throw new Error(`${kind.label}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      }
      return performance.now() - started;
    };
    const startsBefore = emulation.gateway.starts.get(kind.fn) ?? 0;
    emulation.setLatency(settings[3]!);
    const first = await once();
    const answered = performance.now();
    const times = emulation.gateway.startTimes.get(kind.fn);
    const cold = (emulation.gateway.starts.get(kind.fn) ?? 0) > startsBefore && times?.listening
      ? `${(times.listening - times.spawned).toFixed(0)} / ${(answered - times.spawned).toFixed(0)}`
      : "-";
    emulation.database.take();
    await once();
    const trips = emulation.database.take();
    const warm: number[][] = settings.map(() => []);
    for (let i = 0; i < calls * settings.length; i++) {
      emulation.setLatency(settings[i % settings.length]!);
      warm[i % settings.length]!.push(await once());
    }
    const at = (values: number[], q: number) => {
      const sorted = values.toSorted((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    };
    const [none, database, limiter, both] = warm.map((values) => at(values, 0.5)) as [
      number,
      number,
      number,
      number,
    ];
    rows.push([
      kind.label,
      first.toFixed(0),
      cold,
      String(trips.roundTrips),
      `${trips.bytesOut} / ${trips.bytesIn}`,
      none.toFixed(1),
      database.toFixed(1),
      limiter.toFixed(1),
      both.toFixed(1),
      at(warm[3]!, 0.99).toFixed(1),
      `${(both / Math.max(database, limiter)).toFixed(2)}x`,
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  console.log(rows.map((r) => r.map((c, i) => c.padStart(widths[i]!)).join("  ")).join("\n"));
  console.log(
    `\nLimit breaches during the run: ${emulation.gateway.breaches.length || "none"}` +
      ` (${[...emulation.gateway.starts.keys()].length} function instances started)`,
  );
} finally {
  addresses.close();
  await emulation.close();
}
