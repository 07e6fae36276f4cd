/**
 * `deno task emulate:hosted`: starts the emulated hosted project (emulation.ts) and prints where
 * it is, until interrupted. `--verbose` prints every function instance's log lines.
 *
 *   deno task emulate:hosted [--verbose]
 */
import { startHostedEmulation } from "./emulation.ts";

const emulation = await startHostedEmulation({
  redisUrl: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
  verbose: Deno.args.includes("--verbose"),
});
console.log(`Functions: ${emulation.functionsUrl}/<name>`);
console.log(`Database (as postgres): ${emulation.ownerUrl}`);
console.log(`Publishable key: ${emulation.publishableKey}`);
const stop = async () => {
  await emulation.close();
  for (const breach of emulation.gateway.breaches) console.log(`Limit breached: ${breach}`);
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
