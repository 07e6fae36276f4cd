import { Redis } from "ioredis";
import { answers, freePort, waitFor } from "../../scripts/support/free_port.ts";

/**
 * A throwaway redis-server on a random loopback port, with nothing persisted, that a test may kill
 * and start again on the same port. The machine's shared Redis is never touched.
 */
export class RedisServer {
  #child: Deno.ChildProcess | null = null;
  readonly port: number;

  private constructor(port: number) {
    this.port = port;
  }

  /** Starts a redis-server on a free port and waits until it answers. */
  static async start(): Promise<RedisServer> {
    const redis = new RedisServer(freePort());
    await redis.restart();
    return redis;
  }

  /** The address to give the server as REDIS_URL. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the process again on the same port (after `kill`). */
  async restart(): Promise<void> {
    if (this.#child) return;
    this.#child = new Deno.Command("redis-server", {
      args: [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
      ],
      stdout: "null",
      stderr: "null",
    }).spawn();
    await waitFor(`redis-server on port ${this.port}`, () => answers(this.port));
  }

  /** Kills the process (SIGKILL) and waits until the port refuses connections. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = null;
    child.kill("SIGKILL");
    await child.status;
    await waitFor("redis-server to go away", async () => !(await answers(this.port)));
  }

  /** Keys matching a glob pattern, read on a short-lived connection. */
  async keys(pattern: string): Promise<string[]> {
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      return await client.keys(pattern);
    } finally {
      client.disconnect();
    }
  }
}
