import postgres from "postgres";
import { type LocalDatabase, openEmbedded } from "./database.ts";
import { loadEnvFile } from "./env_file.ts";
import { connectionCap, ConnectionFront, type Relay } from "./connection_front.ts";
import { openFileLimit } from "./file_limit.ts";
import { migrate } from "./migrate.ts";
import {
  ConfigurationError,
  databaseSetting,
} from "../../supabase/functions/_shared/configuration.ts";
import { errorMessage } from "../../supabase/functions/_shared/error_message.ts";
import type { FunctionHandler } from "../../supabase/functions/_shared/serve.ts";

const root = new URL("../../", import.meta.url);
const functionsDir = new URL("supabase/functions/", root);

/** Options for the local server. */
export interface ServerOptions {
  port: number;
  /** Embedded data folder; null keeps the embedded database in memory. Ignored with DATABASE_URL. */
  dataDir: string | null;
}

/** A running local server. */
export interface RunningServer {
  /** Base URL of the functions: `http://127.0.0.1:<port>/functions/v1`. */
  functionsUrl: string;
  /** Origin of the web app and the OpenAPI document. */
  appUrl: string;
  database: LocalDatabase;
  /** The endpoints' functions (served besides OTHER_FUNCTIONS). */
  functionNames: string[];
  /** The most client connections held open at once; more are answered 503 and closed. */
  maxConnections: number;
  /** Finishes in-flight requests, then releases the port and the database. */
  close(): Promise<void>;
}

/** How long close() waits for in-flight requests before shutting down regardless. */
export const DRAIN_TIMEOUT_MS = 25_000;
/** After the drain, how long the HTTP server and the pool get to close before close() returns. */
export const SHUTDOWN_GRACE_MS = 2_000;

/** The answer to a request that arrives while the server is shutting down. */
function shuttingDown(): Response {
  return Response.json({ status: "error", message: "Service is shutting down" }, {
    status: 503,
    headers: { "Retry-After": "5", Connection: "close" },
  });
}

/** Waits for `promise`, or for `ms` at most, whichever ends first. */
async function within(ms: number, promise: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.catch(() => {}),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

/** Function folders that are not endpoints of the contract: the MCP server (docs/mcp.md). */
export const OTHER_FUNCTIONS: readonly string[] = ["mcp"];

/**
 * Names of the endpoints' function folders (hyphenated, no leading underscore, with an index.ts):
 * every function but OTHER_FUNCTIONS.
 */
export async function listFunctionNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(functionsDir)) {
    if (!entry.isDirectory || entry.name.startsWith("_")) continue;
    if (OTHER_FUNCTIONS.includes(entry.name)) continue;
    try {
      await Deno.stat(new URL(`${entry.name}/index.ts`, functionsDir));
      names.push(entry.name);
    } catch {
      // a folder without an entrypoint is not a function
    }
  }
  return names.sort();
}

/** A function's handler, from the module that declares it (`<name>/endpoint.ts`), unserved. */
export async function importHandler(name: string): Promise<FunctionHandler> {
  const module: { handler: FunctionHandler } = await import(
    new URL(`${name}/endpoint.ts`, functionsDir).href
  );
  return module.handler;
}

/**
 * Starts every function in one process at `/functions/v1/<name>`, on DATABASE_URL when set or
 * else on the embedded database, after applying migrations and the seed.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const database = await prepareDatabase(options.dataDir);
  const served = await serveFunctions({ port: options.port });
  return {
    ...served,
    database,
    async close() {
      await served.close();
      await database.close();
    },
  };
}

/**
 * Loads `.env`, opens the database (DATABASE_URL, else the embedded one), points DATABASE_URL and
 * DATABASE_POOL_SIZE at it, and applies migrations and the seed.
 */
export async function prepareDatabase(dataDir: string | null): Promise<LocalDatabase> {
  await loadEnvFile();
  const setting = databaseSetting(Deno.env.toObject());
  const database: LocalDatabase = setting
    ? { kind: "postgres", url: setting.url, poolSize: 10, close: () => Promise.resolve() }
    : await openEmbedded(dataDir).catch((e: unknown) => {
      throw new ConfigurationError(
        `Cannot open the embedded database in DATA_DIR: ${errorMessage(e)}`,
      );
    });
  Deno.env.set("DATABASE_URL", database.url);
  // The owner's pool is the request pool on the embedded database (owner_pool.ts).
  Deno.env.set("DATABASE_EMBEDDED", database.kind === "embedded" ? "1" : "0");
  if (database.kind === "embedded" || !Deno.env.get("DATABASE_POOL_SIZE")) {
    Deno.env.set("DATABASE_POOL_SIZE", String(database.poolSize));
  }

  const migrator = postgres(database.url, {
    max: 1,
    onnotice: () => {},
    prepare: Deno.env.get("DATABASE_PREPARE") !== "false",
  });
  try {
    // Whatever stops the first statement is the database's setting or state, not the migrations'.
    await migrator`select 1`.catch((e: unknown) => {
      const database = setting ? `the database at ${setting.name}` : "the embedded database";
      throw new ConfigurationError(`Cannot reach ${database}: ${errorMessage(e)}`);
    });
    await migrate(migrator, { seed: true });
  } finally {
    await migrator.end();
  }
  return database;
}

/** Functions served on a port, without the database under them. */
export type ServedFunctions = Omit<RunningServer, "database">;

/**
 * Serves every function and the app routes on `port` from this thread. With `worker` (one of
 * several sharing the port), the socket is opened with SO_REUSEPORT so the kernel spreads
 * connections over the workers, and every response names the worker in `X-Server-Worker`.
 */
export async function serveFunctions(
  options: { port: number; worker?: number },
): Promise<ServedFunctions> {
  // Function modules read the environment when they load, so they are imported only now.
  const { sql } = await import("../../supabase/functions/_shared/db/pool.ts");
  const { endPools } = await import("./owner_pool.ts");
  // Requests log in as api_authenticator: a start that cannot says why, instead of a 503 a call.
  await sql`select 1`.catch((error) => {
    throw new ConfigurationError(
      `Requests cannot connect as api_authenticator (${error.message}). Where the database asks ` +
        "for a password, give the role one (alter role api_authenticator with password '...') " +
        "and set API_AUTHENTICATOR_PASSWORD to it.",
    );
  });
  const { appRoutes } = await import("./app_routes.ts");
  const functionNames = await listFunctionNames();
  const handlers = new Map<string, FunctionHandler>();
  for (const name of [...functionNames, ...OTHER_FUNCTIONS]) {
    handlers.set(name, await importHandler(name));
  }

  const route = async (req: Request, info: Deno.ServeHandlerInfo): Promise<Response> => {
    const path = new URL(req.url).pathname;
    const match = /^\/functions\/v1\/([a-z0-9-]+)\/?$/.exec(path);
    if (match?.[1]) {
      const handler = handlers.get(match[1]);
      if (handler) return await handler(req, info);
      return Response.json(
        { status: "fail", data: { message: `Function not found: ${match[1]}` } },
        {
          status: 404,
        },
      );
    }
    return await appRoutes(req);
  };
  const worker = options.worker;
  const answer = worker === undefined ? route : async (
    req: Request,
    info: Deno.ServeHandlerInfo,
  ) => nameWorker(await route(req, info), worker);
  // Deno's shutdown() waits for running handlers but cuts request bodies still being uploaded, so
  // close() first lets in-flight requests finish while new ones are turned away.
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | null = null;
  // Clients reach the HTTP server through the front, which caps and times out their connections;
  // the HTTP server listens on a loopback port of its own.
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, async (received, info): Promise<Response> => {
    const relay: Relay | undefined = front.relayFor(info.remoteAddr);
    relay?.requestStarted();
    const req = relay?.watchBody(received) ?? received;
    if (draining) {
      relay?.requestEnded();
      return shuttingDown();
    }
    inFlight++;
    try {
      return await answer(req, {
        remoteAddr: relay?.remoteAddr ?? info.remoteAddr,
        completed: info.completed,
      });
    } finally {
      relay?.requestEnded();
      if (--inFlight === 0) drained?.();
    }
  });
  const files = await openFileLimit();
  const maxConnections = Number(Deno.env.get("MAX_CONNECTIONS")) ||
    connectionCap(files?.soft ?? 1024);
  const front: ConnectionFront = new ConnectionFront(
    Deno.listen({ hostname: "127.0.0.1", port: options.port, reusePort: worker !== undefined }),
    server.addr.port,
    maxConnections,
  );
  const origin = `http://127.0.0.1:${front.addr.port}`;
  if (!Deno.env.get("APP_URL")) Deno.env.set("APP_URL", origin);
  return {
    functionsUrl: `${origin}/functions/v1`,
    appUrl: origin,
    functionNames,
    maxConnections,
    async close() {
      draining = true;
      if (inFlight > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          drained = resolve;
          timer = setTimeout(resolve, DRAIN_TIMEOUT_MS);
        });
        clearTimeout(timer);
      }
      // A handler that never ends must not keep the process alive: shutdown() would wait for it.
      front.stopAccepting();
      await within(SHUTDOWN_GRACE_MS, server.shutdown());
      await within(SHUTDOWN_GRACE_MS, front.ended());
      front.closeAll();
      await within(SHUTDOWN_GRACE_MS, endPools(1));
    },
  };
}

/** Adds the worker's number to a response (a copy when its headers are immutable). */
function nameWorker(response: Response, worker: number): Response {
  try {
    response.headers.set("X-Server-Worker", String(worker));
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set("X-Server-Worker", String(worker));
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}
