import config from "../../deno.json" with { type: "json" };
import { waitFor } from "./free_port.ts";
import { useRunSecrets } from "./run_secrets.ts";

const root = new URL("../../", import.meta.url);
const MAX_OUTPUT = 4 * 1024 * 1024;

/**
 * Environment variables a test may set for the server subprocess; unset ones are removed, and so
 * are those given as "unset" (which also drops the default of the secrets and LOCAL_DEVELOPMENT).
 */
export interface ServerEnv {
  /** A real Postgres; omitted: the embedded database in `DATA_DIR`. */
  DATABASE_URL?: string;
  /** What the hosted platform gives a function, for a start configured as the platform would. */
  SUPABASE_DB_URL?: string;
  SUPABASE_URL?: string;
  SUPABASE_JWKS?: string;
  SUPABASE_PUBLISHABLE_KEYS?: string;
  SUPABASE_SECRET_KEYS?: string;
  /** Embedded data folder (required without DATABASE_URL). */
  DATA_DIR?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  DATABASE_POOL_SIZE?: string;
  /** "false" as behind the hosted pooler (no named statements). */
  DATABASE_PREPARE?: string;
  /** Server workers sharing the port; "1" (one process, one thread) unless a test asks for more. */
  WORKERS?: string;
  RATE_LIMIT_PREFIX?: string;
  LOG_LEVEL?: "info" | "silent";
  PORT?: string;
  MAX_CONNECTIONS?: string;
  /** "0" as deployed (the default), "1" for local development, "unset" to let the start decide. */
  LOCAL_DEVELOPMENT?: "0" | "1" | "unset";
  /** The secrets default to this run's (`useRunSecrets`), which this process signs tokens with. */
  JWT_SECRET?: string;
  CONTENT_UPDATE_SECRET?: string;
  API_KEY_SECRET?: string;
  /**
   * "true" or a header's name behind a trusted proxy; unset as deployed (tests connect from their
   * own addresses).
   */
  TRUST_PROXY?: string;
}

/** Variables that would change what the subprocess connects to if inherited from this process. */
const CONTROLLED = [
  "DATABASE_URL",
  "SUPABASE_DB_URL",
  "SUPABASE_URL",
  "SUPABASE_JWKS",
  "SUPABASE_PUBLISHABLE_KEYS",
  "SUPABASE_SECRET_KEYS",
  "DATA_DIR",
  "REDIS_URL",
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
  "DATABASE_POOL_SIZE",
  "DATABASE_PREPARE",
  "WORKERS",
  "RATE_LIMIT_PREFIX",
  "LOG_LEVEL",
  "PORT",
  "MAX_CONNECTIONS",
  "APP_URL",
  "TRUST_PROXY",
  "LOCAL_DEVELOPMENT",
  "JWT_SECRET",
  "CONTENT_UPDATE_SECRET",
  "API_KEY_SECRET",
];

const START_SCRIPT = "scripts/server/start.ts";

/** The `deno run` flags of `deno task start`, so a test's server runs as a user's does. */
export function startFlags(): string[] {
  const words = config.tasks.start.split(/\s+/);
  const script = words.indexOf(START_SCRIPT);
  if (words[1] !== "run" || script < 0) {
    throw new Error(`Unexpected start task: ${config.tasks.start}`);
  }
  return words.slice(2, script);
}

/**
 * `deno task start` as a subprocess on a free port, for tests that must kill or signal the server,
 * or cut its dependencies. It is configured as deployed unless told otherwise: no local
 * development, no trusted proxy, and the run's own secrets. Its output is collected for log
 * assertions.
 */
export class ServerProcess {
  readonly #child: Deno.ChildProcess;
  #output = "";
  #functionsUrl = "";
  /** Resolves with the exit status once the process has ended. */
  readonly status: Promise<Deno.CommandStatus>;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.status = child.status;
    this.#collect(child.stdout);
    this.#collect(child.stderr);
  }

  /** Starts the server and waits for its ready line (migrations included). */
  static async start(
    env: ServerEnv,
    options: { timeoutMs?: number; denoFlags?: string[]; openFiles?: [number, number] } = {},
  ): Promise<ServerProcess> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const inherited = Deno.env.toObject();
    for (const name of CONTROLLED) delete inherited[name];
    const childEnv: Record<string, string> = {
      ...inherited,
      PORT: "0",
      LOG_LEVEL: "info",
      LOCAL_DEVELOPMENT: "0",
      ...useRunSecrets(),
      WORKERS: "1",
      RATE_LIMIT_PREFIX: `fault-${crypto.randomUUID()}`,
      ...env,
    };
    for (const [name, value] of Object.entries(childEnv)) {
      if (value === "unset") delete childEnv[name];
    }
    const deno = [
      Deno.execPath(),
      "run",
      ...startFlags(),
      "--no-check",
      ...(options.denoFlags ?? []),
      START_SCRIPT,
    ];
    // `prlimit` execs the server in place, so the process id stays the server's.
    const argv = options.openFiles
      ? ["prlimit", `--nofile=${options.openFiles[0]}:${options.openFiles[1]}`, "--", ...deno]
      : deno;
    const child = new Deno.Command(argv[0]!, {
      args: argv.slice(1),
      cwd: root.pathname,
      clearEnv: true,
      env: childEnv,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const server = new ServerProcess(child);
    let exited = false;
    server.status.then(() => (exited = true));
    try {
      await waitFor("the server's ready line", () => {
        if (exited) throw new Error(`The server exited before it was ready:\n${server.output}`);
        const match = /^Ready: (http:\/\/\S+\/functions\/v1)\//m.exec(server.#output);
        if (match?.[1]) server.#functionsUrl = match[1];
        return server.#functionsUrl !== "";
      }, timeoutMs);
    } catch (e) {
      server.kill("SIGKILL");
      await server.status;
      throw e;
    }
    return server;
  }

  /** Base URL of the functions, `http://127.0.0.1:<port>/functions/v1`. */
  get functionsUrl(): string {
    return this.#functionsUrl;
  }

  /** The process id (the Deno process itself, so its memory figures are the server's). */
  get pid(): number {
    return this.#child.pid;
  }

  /** Everything the server printed so far, stdout and stderr interleaved by arrival. */
  get output(): string {
    return this.#output;
  }

  /** The JSON log lines printed so far, parsed. */
  logLines(): Record<string, unknown>[] {
    const lines: Record<string, unknown>[] = [];
    for (const line of this.#output.split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        lines.push(JSON.parse(line));
      } catch {
        // a partial line still being written
      }
    }
    return lines;
  }

  /** Sends a signal (ignored when the process has already ended). */
  kill(signal: Deno.Signal): void {
    try {
      this.#child.kill(signal);
    } catch {
      // already exited
    }
  }

  /** Kills the process if it still runs and waits for it. */
  async stop(): Promise<void> {
    this.kill("SIGKILL");
    await this.status;
  }

  /** Resident and peak resident memory of the process in KiB, read from /proc. */
  async memory(): Promise<{ rssKb: number; peakRssKb: number }> {
    const text = await Deno.readTextFile(`/proc/${this.pid}/status`);
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1]);
    return { rssKb: field("VmRSS"), peakRssKb: field("VmHWM") };
  }

  async #collect(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    try {
      for await (const chunk of stream) {
        // Whole lines only, so stdout and stderr never interleave inside a line.
        pending += decoder.decode(chunk, { stream: true });
        const cut = pending.lastIndexOf("\n");
        if (cut >= 0) {
          this.#output += pending.slice(0, cut + 1);
          pending = pending.slice(cut + 1);
          // A long benchmark logs a line per request: keep the most recent output only.
          if (this.#output.length > MAX_OUTPUT) this.#output = this.#output.slice(-MAX_OUTPUT / 2);
        }
      }
    } catch {
      // the process ended
    }
    this.#output += pending;
  }
}
