import { freePort, waitFor } from "../support/free_port.ts";

/**
 * The hosted platform's limits per function instance, from its Edge Functions "Limits" page (see
 * docs/deploy.md): the emulation enforces what it can and records every breach.
 */
export const PLATFORM_LIMITS = {
  memoryBytes: 256 * 1024 * 1024,
  cpuMsPerRequest: 2_000,
  idleTimeoutMs: 150_000,
  requestWallClockMs: 150_000,
  logEventsPerWindow: 100,
  logWindowMs: 10_000,
  logMessageChars: 10_000,
} as const;

/** How the gateway starts function instances. */
export interface GatewayOptions {
  /** The platform's Deno (the hosted edge runtime's version). */
  denoBin: string;
  /** The whole environment of every function: what the platform gives plus the deployer's secrets. */
  functionEnv: Record<string, string>;
  /** The JWKS served at /auth/v1/.well-known/jwks.json. */
  jwks: unknown;
  /** The secret keys Storage accepts (`apikey`). */
  storageKeys: readonly string[];
  /** Whether a Storage bucket exists and is public (the project's migrations declare them). */
  bucketIsPublic(bucket: string): Promise<boolean>;
  /** Prints each instance's log lines as they come (default: only limit breaches are kept). */
  verbose?: boolean;
}

const root = new URL("../../", import.meta.url);

/**
 * The process of one function instance as the platform runs it: its own Deno of the platform's
 * version, only the given environment, the function's import map and the platform's heap limit.
 */
export function functionInstance(
  denoBin: string,
  name: string,
  port: number,
  env: Record<string, string>,
): Deno.Command {
  return new Deno.Command(denoBin, {
    args: [
      "run",
      "--no-config",
      "--lock=deno.lock",
      "--frozen",
      "--import-map=supabase/functions/import_map.json",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      // The platform counts the isolate's heap; the process's own overhead is the runtime's.
      `--v8-flags=--max-old-space-size=${PLATFORM_LIMITS.memoryBytes / 1024 / 1024}`,
      "scripts/hosted/function_instance.ts",
      name,
      String(port),
    ],
    cwd: root,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/**
 * The emulated gateway of a hosted Supabase project on one port: `/functions/v1/<name>` starts
 * the function's own instance on its first request (a process of the platform's Deno, loading
 * only that function) and relays to it; instances idle for 150 s are stopped. Also serves what
 * the functions reach on the project's own URL: the JWKS of Auth and the object endpoints of
 * Storage. What it does not emulate (Kong and Cloudflare themselves, Supavisor, Auth) is listed in
 * docs/deploy.md.
 */
export class HostedGateway {
  readonly port: number;
  /** Every breach of the platform's limits, in order. */
  readonly breaches: string[] = [];
  /** Instances started, by function (a new instance after a stop counts again). */
  readonly starts = new Map<string, number>();
  /** When each function's latest instance was spawned and began to listen (performance.now()). */
  readonly startTimes = new Map<string, { spawned: number; listening?: number }>();
  readonly #options: GatewayOptions;
  readonly #instances = new Map<string, Promise<Instance>>();
  readonly #objects = new Map<string, { type: string; bytes: ArrayBuffer }>();
  #server: Deno.HttpServer | null = null;
  #reaper: ReturnType<typeof setInterval> | undefined;

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.port = freePort();
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: this.port, onListen: () => {} },
      (req, info) => this.#route(req, info),
    );
    this.#reaper = setInterval(() => this.#stopIdle(), 1_000);
    await waitFor("the gateway", async () => (await fetch(`${this.origin}/health`)).ok);
  }

  async close(): Promise<void> {
    clearInterval(this.#reaper);
    const instances = await Promise.allSettled(this.#instances.values());
    for (const result of instances) if (result.status === "fulfilled") result.value.stop();
    this.#instances.clear();
    await this.#server?.shutdown();
  }

  /**
   * Stops a function's instance, as the platform does when it scales one down: its next request
   * starts another.
   */
  async stopInstance(name: string): Promise<void> {
    const pending = this.#instances.get(name);
    if (!pending) return;
    this.#instances.delete(name);
    const instance = await pending.catch(() => null);
    if (!instance) return;
    instance.stop();
    await instance.finished;
  }

  async #route(req: Request, info: Deno.ServeHandlerInfo): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname === "/health") return new Response("ok");
    if (url.pathname === "/auth/v1/.well-known/jwks.json") {
      return Response.json(this.#options.jwks);
    }
    if (url.pathname.startsWith("/storage/v1/object/")) return await this.#storage(req, url);
    const match = /^\/functions\/v1\/([a-z0-9-]+)(\/.*)?$/.exec(url.pathname);
    if (!match?.[1]) return Response.json({ message: "not found" }, { status: 404 });
    return await this.#relay(match[1], req, url, info);
  }

  async #relay(
    name: string,
    req: Request,
    url: URL,
    info: Deno.ServeHandlerInfo,
  ): Promise<Response> {
    let instance: Instance;
    try {
      instance = await this.#instance(name);
    } catch (e) {
      return Response.json({ code: "NOT_FOUND", message: String(e) }, { status: 404 });
    }
    const headers = new Headers(req.headers);
    // The gateway compresses for its own client; the instance answers it uncompressed.
    headers.set("accept-encoding", "identity");
    forwardAs(headers, (info.remoteAddr as Deno.NetAddr).hostname);
    const requestBody = req.body ? await bufferedBody(req.body) : null;
    if (req.body && requestBody === null) {
      return Response.json({ message: "Request body too large" }, { status: 413 });
    }
    const cpuBefore = instance.cpuMs();
    instance.begin();
    try {
      const answer = await fetch(`http://127.0.0.1:${instance.port}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: requestBody,
        redirect: "manual",
        signal: AbortSignal.any([
          req.signal,
          AbortSignal.timeout(PLATFORM_LIMITS.requestWallClockMs),
        ]),
      });
      const out = new Headers(answer.headers);
      out.delete("content-encoding");
      out.delete("content-length");
      // Without a custom domain the platform serves no HTML from a function.
      if (req.method === "GET" && out.get("content-type")?.startsWith("text/html")) {
        out.set("content-type", "text/plain");
      }
      const body = answer.body?.pipeThrough(
        new TransformStream({
          flush: () => this.#checkCpu(name, instance, cpuBefore),
        }),
      );
      return new Response(body ?? null, { status: answer.status, headers: out });
    } catch (e) {
      if (instance.exited) {
        return Response.json({ code: "WORKER_LIMIT", message: instance.exitReason }, {
          status: 546,
        });
      }
      return Response.json({ message: `the function did not answer: ${e}` }, { status: 502 });
    } finally {
      instance.end();
    }
  }

  #checkCpu(name: string, instance: Instance, before: number): void {
    if (instance.inFlight > 1) return; // concurrent requests share the counter
    const spent = instance.cpuMs() - before;
    if (spent > PLATFORM_LIMITS.cpuMsPerRequest) {
      this.breaches.push(`${name}: a request used ${spent} ms of CPU (limit 2,000)`);
    }
  }

  #instance(name: string): Promise<Instance> {
    const running = this.#instances.get(name);
    if (running) return running;
    const times: { spawned: number; listening?: number } = { spawned: performance.now() };
    this.startTimes.set(name, times);
    const started = Instance.start(name, this.#options, (breach) => this.breaches.push(breach));
    started.then(() => times.listening = performance.now(), () => {});
    this.#instances.set(name, started);
    this.starts.set(name, (this.starts.get(name) ?? 0) + 1);
    started.then(
      (instance) =>
        instance.finished.then(() => {
          if (this.#instances.get(name) === started) this.#instances.delete(name);
        }),
      () => this.#instances.delete(name),
    );
    return started;
  }

  async #stopIdle(): Promise<void> {
    const now = Date.now();
    for (const [name, pending] of this.#instances) {
      const instance = await pending.catch(() => null);
      if (
        instance && instance.inFlight === 0 &&
        now - instance.lastUsed > PLATFORM_LIMITS.idleTimeoutMs
      ) {
        this.#instances.delete(name);
        instance.stop();
      }
    }
  }

  /** Storage's object endpoints, as far as the functions use them (upload, public read). */
  async #storage(req: Request, url: URL): Promise<Response> {
    const publicRead = /^\/storage\/v1\/object\/public\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (publicRead && req.method === "GET") {
      const object = this.#objects.get(`${publicRead[1]}/${publicRead[2]}`);
      if (!object || !(await this.#options.bucketIsPublic(publicRead[1]!))) {
        return Response.json({ error: "not_found" }, { status: 400 });
      }
      return new Response(object.bytes, { headers: { "content-type": object.type } });
    }
    const upload = /^\/storage\/v1\/object\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (!upload || req.method !== "POST") return new Response(null, { status: 405 });
    if (!this.#options.storageKeys.includes(req.headers.get("apikey") ?? "")) {
      return Response.json({ error: "Unauthorized" }, { status: 401 });
    }
    if (!(await this.#options.bucketIsPublic(upload[1]!))) {
      return Response.json({ error: "Bucket not found" }, { status: 404 });
    }
    this.#objects.set(`${upload[1]}/${upload[2]}`, {
      type: req.headers.get("content-type") ?? "application/octet-stream",
      bytes: await req.arrayBuffer(),
    });
    return Response.json({ Key: `${upload[1]}/${upload[2]}` });
  }
}

/** One function's running instance: a process of the platform's Deno on a port of its own. */
class Instance {
  inFlight = 0;
  lastUsed = Date.now();
  exited = false;
  exitReason = "";
  readonly finished: Promise<void>;
  readonly #child: Deno.ChildProcess;
  readonly #name: string;
  #baselineRss = 0;
  #watch: ReturnType<typeof setInterval> | undefined;

  private constructor(
    readonly port: number,
    name: string,
    child: Deno.ChildProcess,
    private readonly breach: (text: string) => void,
  ) {
    this.#name = name;
    this.#child = child;
    this.finished = child.status.then((status) => {
      this.exited = true;
      this.exitReason ||= `the instance exited (${status.code})`;
      clearInterval(this.#watch);
    });
  }

  static async start(
    name: string,
    options: GatewayOptions,
    breach: (text: string) => void,
  ): Promise<Instance> {
    const exists = await Deno.stat(new URL(`supabase/functions/${name}/index.ts`, root))
      .then(() => true, () => false);
    if (name.startsWith("_") || !exists) throw new Error(`no function named ${name}`);
    const port = freePort();
    const child = functionInstance(options.denoBin, name, port, options.functionEnv).spawn();
    const instance = new Instance(port, name, child, breach);
    const listening = Promise.withResolvers<void>();
    instance.#readLogs(child.stdout, options.verbose, listening.resolve);
    instance.#readLogs(child.stderr, options.verbose, () => {});
    const failed = instance.finished.then(() => {
      throw new Error(`${name} stopped before serving: ${instance.exitReason}`);
    });
    await Promise.race([listening.promise, failed]);
    instance.#baselineRss = instance.rssBytes();
    instance.#watch = setInterval(() => instance.#checkMemory(), 100);
    return instance;
  }

  begin(): void {
    this.inFlight++;
    this.lastUsed = Date.now();
  }

  end(): void {
    this.inFlight--;
    this.lastUsed = Date.now();
  }

  stop(): void {
    clearInterval(this.#watch);
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }

  /** User plus system CPU time of the process so far. */
  cpuMs(): number {
    try {
      const fields = Deno.readTextFileSync(`/proc/${this.#child.pid}/stat`).split(") ")[1]!
        .split(" ");
      return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
    } catch {
      return 0;
    }
  }

  rssBytes(): number {
    try {
      const status = Deno.readTextFileSync(`/proc/${this.#child.pid}/status`);
      return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      return 0;
    }
  }

  /** The memory the function itself added since it started serving, held to the platform's cap. */
  #checkMemory(): void {
    const used = this.rssBytes() - this.#baselineRss;
    if (used <= PLATFORM_LIMITS.memoryBytes) return;
    this.exitReason = `${this.#name} used ${Math.round(used / 1048576)} MB (limit 256 MB)`;
    this.breach(this.exitReason);
    this.stop();
  }

  async #readLogs(
    stream: ReadableStream<Uint8Array>,
    verbose: boolean | undefined,
    onListening: () => void,
  ): Promise<void> {
    let windowStart = Date.now();
    let events = 0;
    let reported = false;
    const lines = stream.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines());
    for await (const line of lines) {
      if (line === `listening ${this.#name}`) {
        onListening();
        continue;
      }
      if (verbose) console.log(`[${this.#name}] ${line}`);
      const now = Date.now();
      if (now - windowStart >= PLATFORM_LIMITS.logWindowMs) {
        windowStart = now;
        events = 0;
        reported = false;
      }
      events++;
      if (events > PLATFORM_LIMITS.logEventsPerWindow && !reported) {
        reported = true;
        this.breach(`${this.#name}: more than 100 log events in 10 s`);
      }
      if (line.length > PLATFORM_LIMITS.logMessageChars) {
        this.breach(`${this.#name}: a log message of ${line.length} characters (limit 10,000)`);
      }
    }
  }
}

/**
 * The headers the platform's proxies write about the client at `peer`, on top of everything the
 * caller sent, which passes through (docs/deploy.md, "The client address"): Cloudflare sets
 * `cf-connecting-ip` to the address that connected to it, over any value the caller sent, and
 * appends that address to `x-forwarded-for`; Kong (nginx) sets `x-real-ip` to its peer, as the
 * Supabase CLI's own API proxy does.
 */
export function forwardAs(headers: Headers, peer: string): void {
  headers.set("cf-connecting-ip", peer);
  headers.set("x-real-ip", peer);
  const claimed = headers.get("x-forwarded-for");
  headers.set("x-forwarded-for", claimed ? `${claimed}, ${peer}` : peer);
}

/**
 * The largest request body the emulated gateway passes on (above every function's own cap, the
 * largest being upload-public-file's 2.8 MB): larger ones are refused here with 413.
 */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * The request body, read whole before it is passed on, as the platform's proxy (nginx under Kong)
 * buffers requests: a function that answers before reading a large body (413) still has its answer
 * relayed. Null when the body is over MAX_REQUEST_BYTES (an endless upload).
 */
async function bufferedBody(body: ReadableStream<Uint8Array>): Promise<ArrayBuffer | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done || !value) break;
    chunks.push(value);
    bytes += value.length;
    if (bytes > MAX_REQUEST_BYTES) {
      await reader.cancel().catch(() => {});
      return null;
    }
  }
  const whole = new Uint8Array(bytes);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return whole.buffer;
}

function splitLines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() ?? "";
      for (const part of parts) controller.enqueue(part);
    },
    flush(controller) {
      if (rest) controller.enqueue(rest);
    },
  });
}
