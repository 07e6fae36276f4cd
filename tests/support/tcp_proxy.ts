import { closeQuietly } from "../../scripts/server/connection_front.ts";
import { relayBytes } from "../../scripts/support/tcp_relay.ts";

/**
 * A TCP proxy inside the test process that can be cut and restored, to make a dependency such as
 * Postgres disappear for a server subprocess without touching the dependency itself.
 */
export class TcpProxy {
  #listener: Deno.Listener | null = null;
  readonly #live = new Set<Deno.Conn>();
  readonly #target: Deno.ConnectOptions;
  /** The loopback port the proxy listens on; it stays the same across cut and restore. */
  readonly port: number;
  /**
   * While set, a connection relayed from now on is dropped when its client sends anything after
   * its first write (for Postgres: after the startup message, at the first query).
   */
  dropAfterStartup = false;

  private constructor(target: Deno.ConnectOptions, port: number) {
    this.#target = target;
    this.port = port;
  }

  /** Starts a proxy to `target` on a free loopback port (or the given one). */
  static start(target: Deno.ConnectOptions, port = 0): TcpProxy {
    const listener = Deno.listen({ hostname: "127.0.0.1", port });
    const proxy = new TcpProxy(target, (listener.addr as Deno.NetAddr).port);
    proxy.#serve(listener);
    return proxy;
  }

  /** Whether the proxy currently accepts connections. */
  get open(): boolean {
    return this.#listener !== null;
  }

  /** Connections currently relayed. */
  get connections(): number {
    return this.#live.size / 2;
  }

  /** Drops every relayed connection and stops listening: new connections are refused. */
  cut(): void {
    this.#listener?.close();
    this.#listener = null;
    this.dropConnections();
  }

  /** Drops every relayed connection; new ones are still accepted. */
  dropConnections(): void {
    for (const conn of this.#live) closeQuietly(conn);
    this.#live.clear();
  }

  /** Listens again on the same port. */
  restore(): void {
    if (this.#listener) return;
    this.#serve(Deno.listen({ hostname: "127.0.0.1", port: this.port }));
  }

  /** Stops the proxy for good. */
  close(): void {
    this.cut();
  }

  #serve(listener: Deno.Listener): void {
    this.#listener = listener;
    (async () => {
      try {
        for await (const inbound of listener) this.#relay(inbound);
      } catch {
        // the listener was closed by cut()
      }
    })();
  }

  async #relay(inbound: Deno.Conn): Promise<void> {
    let outbound: Deno.Conn;
    try {
      outbound = await Deno.connect(this.#target);
    } catch {
      closeQuietly(inbound);
      return;
    }
    if (!this.#listener) {
      closeQuietly(inbound);
      closeQuietly(outbound);
      return;
    }
    this.#live.add(inbound);
    this.#live.add(outbound);
    const end = () => {
      closeQuietly(inbound);
      closeQuietly(outbound);
      this.#live.delete(inbound);
      this.#live.delete(outbound);
    };
    // Dropped before chunk `writesAllowed + 1` from the client.
    const writesAllowed = this.dropAfterStartup ? 1 : Infinity;
    let writes = 0;
    relayBytes(inbound, outbound, () => writes++ < writesAllowed).finally(end);
    relayBytes(outbound, inbound).finally(end);
  }
}
