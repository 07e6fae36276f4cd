import { isLocalDevelopment, loadEnvFile } from "./env_file.ts";
import { raiseOpenFileLimit } from "./file_limit.ts";
import { connectionCap } from "./connection_front.ts";
import type { LocalDatabase } from "./database.ts";
import { ConfigurationError } from "../../supabase/functions/_shared/configuration.ts";
import {
  DRAIN_TIMEOUT_MS,
  listFunctionNames,
  prepareDatabase,
  serveFunctions,
  SHUTDOWN_GRACE_MS,
} from "./server.ts";
import type { FromWorker, ToWorker } from "./server_worker.ts";

const files = await raiseOpenFileLimit();
/** Set once a signal or a failed worker has begun the shutdown. */
let stopping = false;

await loadEnvFile(); // before any setting is read: `.env` may hold PORT or DATA_DIR
const port = wholeNumber("PORT", 54321, 0, 65_535);
const connections = wholeNumber("MAX_CONNECTIONS", connectionCap(files?.soft ?? 1024), 1);
const workersWanted = wholeNumber("WORKERS", navigator.hardwareConcurrency, 1);
const poolBudget = wholeNumber("DATABASE_POOL_SIZE", 10, 1);
const database = await prepareDatabase(Deno.env.get("DATA_DIR") ?? ".data");
const workers = planWorkers(database, workersWanted, poolBudget);
// The workers are threads of this process and share its open files: each holds its share.
const connectionShare = Math.max(1, Math.floor(connections / workers));
Deno.env.set("MAX_CONNECTIONS", String(connectionShare));
const running = workers === 1 ? await serveHere() : await startWorkers(workers);

if (isLocalDevelopment()) {
  console.log(
    "Local development mode (LOCAL_DEVELOPMENT=1): sign-in at /auth/v1 accepts any password and " +
      "the published example secrets are allowed. Never expose this server.",
  );
  if (workers > 1) {
    console.log(
      "The sign-in stand-in keeps refresh tokens per worker: a refresh that reaches another worker " +
        "signs out (WORKERS=1 avoids it).",
    );
  }
}
console.log(
  `Ready: ${running.functionsUrl}/<function-name> (${running.functionNames} functions, ` +
    `${database.kind} database), app at ${running.appUrl}`,
);
if (files) console.log(`Open files: up to ${files.soft} (hard limit ${files.hard})`);
console.log(
  `Connections: at most ${connectionShare * workers} open at once (MAX_CONNECTIONS), more are ` +
    "answered 503; idle ones are closed",
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    if (stopping) return;
    stopping = true;
    await running.close();
    await database.close();
    Deno.exit(0);
  });
}

interface Running {
  functionsUrl: string;
  appUrl: string;
  functionNames: number;
  close(): Promise<void>;
}

/**
 * How many workers to run: `wanted` (WORKERS), but one on the embedded database, and never more
 * than the pool `budget` (DATABASE_POOL_SIZE) has connections. Sets DATABASE_POOL_SIZE to each
 * worker's share of the budget (the workers read it when they load).
 */
function planWorkers(database: LocalDatabase, wanted: number, budget: number): number {
  if (database.kind === "embedded") {
    if (wanted > 1) {
      console.log(
        `One worker instead of ${wanted}: the embedded database has a single session, and its ` +
          "data folder can be open in one process only. Set DATABASE_URL to run several.",
      );
    }
    return 1;
  }
  const count = Math.min(wanted, budget);
  if (count < wanted) {
    console.log(
      `${count} workers instead of ${wanted}: DATABASE_POOL_SIZE=${budget} is the connection ` +
        "budget of them all, and each needs at least one.",
    );
  }
  if (count > 1 && reusablePort(0) === null) {
    console.log(
      `One worker instead of ${count}: sharing the port needs SO_REUSEPORT, which Deno offers ` +
        "with --unstable-net (as `deno task start` runs).",
    );
    return planShare(1, budget);
  }
  return planShare(count, budget);
}

/** The whole-number setting `name`, `fallback` when unset; a ConfigurationError out of range. */
function wholeNumber(name: string, fallback: number, min: number, max = Infinity): number {
  const given = Deno.env.get(name);
  const value = given === undefined || given === "" ? fallback : /^\d+$/.test(given) ? +given : NaN;
  if (Number.isInteger(value) && value >= min && value <= max) return value;
  const range = max === Infinity ? `from ${min}` : `from ${min} to ${max}`;
  throw new ConfigurationError(`Invalid environment: ${name} must be a whole number ${range}`);
}

/** Gives each of `count` workers its share of the pool budget (read when the workers load). */
function planShare(count: number, budget: number): number {
  const share = Math.floor(budget / count);
  Deno.env.set("DATABASE_POOL_SIZE", String(share));
  if (count > 1) {
    console.log(
      `Workers: ${count} sharing port ${port || "(free)"}, ${share} database connections each ` +
        `(${share * count} of DATABASE_POOL_SIZE=${budget})`,
    );
  }
  return count;
}

/** One worker: the functions are served from this thread, as they always were. */
async function serveHere(): Promise<Running> {
  const served = await serveFunctions({ port });
  return { ...served, functionNames: served.functionNames.length };
}

/**
 * Several workers on one port: Deno Workers (threads, each with its own isolate, event loop and
 * pool) whose sockets share the port through SO_REUSEPORT, so the kernel spreads connections over
 * them. A worker that fails stops the whole server with exit status 1 (after the others drain):
 * whatever supervises the server restarts it, as it would restart a single process.
 */
async function startWorkers(count: number): Promise<Running> {
  // Every worker must bind the same port, so port 0 is resolved here once.
  const shared = reusablePort(port) ?? port;
  const origin = `http://127.0.0.1:${shared}`;
  if (!Deno.env.get("APP_URL")) Deno.env.set("APP_URL", origin);
  const threads = Array.from(
    { length: count },
    () => new Worker(new URL("./server_worker.ts", import.meta.url), { type: "module" }),
  );
  let failing = false;
  const stopAll = async () => {
    // Each drains for at most DRAIN_TIMEOUT_MS, then gets the same grace as a single server.
    const ceiling = DRAIN_TIMEOUT_MS + 3 * SHUTDOWN_GRACE_MS;
    await Promise.race([
      Promise.all(threads.map((t) => ask(t, { type: "close" }, "closed").catch(() => {}))),
      new Promise((resolve) => setTimeout(resolve, ceiling)),
    ]);
    for (const thread of threads) thread.terminate();
  };
  threads.forEach((thread, i) => {
    thread.onerror = async (event) => {
      event.preventDefault();
      console.error(`Worker ${i + 1} failed: ${event.message}; stopping the server`);
      if (failing) return;
      failing = true;
      stopping = true;
      await stopAll();
      await database.close();
      Deno.exit(1);
    };
  });
  await Promise.all(
    threads.map((t, i) => ask(t, { type: "start", port: shared, worker: i + 1 }, "ready")),
  );
  return {
    functionsUrl: `${origin}/functions/v1`,
    appUrl: origin,
    functionNames: (await listFunctionNames()).length,
    close: stopAll,
  };
}

/** Sends a worker a message and waits for the answer of the given type. */
function ask(thread: Worker, message: ToWorker, answer: FromWorker["type"]): Promise<void> {
  return new Promise((resolve) => {
    const listener = (event: MessageEvent<FromWorker>) => {
      if (event.data.type !== answer) return;
      thread.removeEventListener("message", listener);
      resolve();
    };
    thread.addEventListener("message", listener);
    thread.postMessage(message);
  });
}

/**
 * A loopback port that was free a moment ago (the OS picks it) when `wanted` is 0, else `wanted`;
 * null when SO_REUSEPORT is not available (Deno needs `--unstable-net` for it).
 */
function reusablePort(wanted: number): number | null {
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ hostname: "127.0.0.1", port: 0, reusePort: true });
  } catch {
    return null;
  }
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return wanted || port;
}
