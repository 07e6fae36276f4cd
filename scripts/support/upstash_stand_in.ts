import { Redis, ReplyError } from "ioredis";
import { freePort, waitFor } from "./free_port.ts";
import { UPSTASH_ONLY_FLAG, UpstashScripts } from "./redis_script_flags.ts";

/** How the stand-in misbehaves, for fault tests. */
export type StandInFault =
  | { kind: "none" }
  /** Every answer waits this long first. */
  | { kind: "slow"; delayMs: number }
  /** Every request is answered with this HTTP status and an `{error}` body. */
  | { kind: "error"; status: number; message: string };

/**
 * A small HTTP server that speaks Upstash's REST wire format in front of a real Redis, so the
 * hosted limiter path (@upstash/redis over HTTP) runs in tests:
 *
 * - `POST /` with a JSON array `["CMD", arg, ...]` answers `{"result": ...}`, or HTTP 400
 *   `{"error": "..."}` when Redis refuses the command;
 * - `POST /pipeline` and `POST /multi-exec` with an array of such arrays answer an array of
 *   `{"result"}` / `{"error"}` entries (multi-exec runs them in order; no isolation is promised
 *   here since the limiter sends single commands);
 * - `Authorization: Bearer <token>` is required (401 `{"error": "Unauthorized"}` otherwise);
 * - with `Upstash-Encoding: base64`, string results are base64-encoded, numbers and nulls are not.
 *
 * Commands reach Redis through ioredis; scripts lose the shebang flag Upstash reads and
 * open-source Redis refuses (`redis_script_flags.ts`).
 */
export class UpstashStandIn {
  readonly port: number;
  readonly token = crypto.randomUUID();
  fault: StandInFault = { kind: "none" };
  /** Added to every answer, as a store across a network (bench:hosted). */
  latencyMs = 0;
  /** Requests received, by path. */
  readonly received = new Map<string, number>();
  /**
   * Scripts sent without the shebang flag that lets Upstash lock only their keys: each would hold
   * the whole database while it runs.
   */
  readonly globalLockScripts = new Set<string>();
  readonly #redis: Redis;
  readonly #scripts = new UpstashScripts();
  #server: Deno.HttpServer | null = null;

  private constructor(redisUrl: string, port: number) {
    this.#redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    this.port = port;
  }

  /** Starts the stand-in in front of the Redis at `redisUrl`. */
  static start(redisUrl: string): UpstashStandIn {
    const standIn = new UpstashStandIn(redisUrl, freePort());
    standIn.resume();
    return standIn;
  }

  /** The URL to give the server as UPSTASH_REDIS_REST_URL. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The environment that points a server at this stand-in. */
  get env(): { UPSTASH_REDIS_REST_URL: string; UPSTASH_REDIS_REST_TOKEN: string } {
    return { UPSTASH_REDIS_REST_URL: this.url, UPSTASH_REDIS_REST_TOKEN: this.token };
  }

  /** Stops listening: connections are refused, as when the service is unreachable. */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    await server?.shutdown();
  }

  /** Listens again on the same port. */
  resume(): void {
    if (this.#server) return;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: this.port, onListen: () => {} },
      (req) =>
        this.#handle(req).catch((e) =>
          Response.json({ error: `ERR ${e instanceof Error ? e.message : e}` }, { status: 500 })
        ),
    );
  }

  /** Stops for good. */
  async close(): Promise<void> {
    await this.down();
    this.#redis.disconnect();
  }

  /** Waits until at least `count` requests reached `path`. */
  async waitForRequests(path: string, count: number): Promise<void> {
    await waitFor(`${count} requests to ${path}`, () => (this.received.get(path) ?? 0) >= count);
  }

  async #handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    this.received.set(path, (this.received.get(path) ?? 0) + 1);
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const fault = this.fault;
    if (fault.kind === "slow") await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault.kind === "error") {
      return Response.json({ error: fault.message }, { status: fault.status });
    }
    if (req.method !== "POST") {
      return Response.json({ error: "Method not allowed" }, { status: 405 });
    }
    if (req.headers.get("authorization") !== `Bearer ${this.token}`) {
      return Response.json({ error: "Unauthorized" }, { status: 401 });
    }
    const base64 = req.headers.get("upstash-encoding")?.toLowerCase() === "base64";
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return Response.json({ error: "ERR failed to parse command" }, { status: 400 });
    }
    if (path === "/pipeline" || path === "/multi-exec") {
      if (!Array.isArray(body) || !body.every(isCommand)) {
        return Response.json({ error: "ERR invalid pipeline" }, { status: 400 });
      }
      const answers = [];
      for (const command of body) {
        const answer = await this.#run(command);
        answers.push("error" in answer ? answer : { result: encode(answer.result, base64) });
      }
      return Response.json(answers);
    }
    if (path !== "/" || !isCommand(body)) {
      return Response.json({ error: "ERR unknown command" }, { status: 400 });
    }
    const answer = await this.#run(body);
    if ("error" in answer) return Response.json(answer, { status: 400 });
    return Response.json({ result: encode(answer.result, base64) });
  }

  async #run(command: unknown[]): Promise<{ result: unknown } | { error: string }> {
    const [name = "", ...args] = command.map((part) => String(part));
    const upper = name.toUpperCase();
    try {
      if (upper === "EVAL") {
        const [script = "", ...rest] = args;
        const flags = /^#!lua flags=(\S*)/.exec(script)?.[1]?.split(",") ?? [];
        if (!flags.includes(UPSTASH_ONLY_FLAG)) this.globalLockScripts.add(script.slice(0, 60));
        return { result: await this.#redis.call("EVAL", this.#scripts.forEval(script), ...rest) };
      }
      if (upper === "EVALSHA") {
        const [hash = "", ...rest] = args;
        return {
          result: await this.#redis.call("EVALSHA", this.#scripts.forEvalsha(hash), ...rest),
        };
      }
      return { result: await this.#redis.call(name, ...args) };
    } catch (e) {
      if (e instanceof ReplyError) return { error: (e as Error).message };
      throw e;
    }
  }
}

function isCommand(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0 && typeof value[0] === "string";
}

/** Upstash's base64 answer encoding: strings encoded, arrays element by element. */
function encode(value: unknown, base64: boolean): unknown {
  if (!base64) return value;
  if (typeof value === "string") {
    return btoa(String.fromCharCode(...new TextEncoder().encode(value)));
  }
  if (Array.isArray(value)) return value.map((v: unknown) => encode(v, base64));
  return value;
}
