import { closeQuietly } from "../server/connection_front.ts";
import { relayBytes } from "./tcp_relay.ts";

/**
 * A TCP proxy that counts round trips between a server and its database: a round trip begins each
 * time the client sends after the server has answered (or first), so statements sent together in
 * one write, or pipelined without waiting, count once. Bytes are counted each way. With
 * `delayMs`, each round trip is held back that long, as a database across a network would be.
 */
export interface RoundTrips {
  roundTrips: number;
  bytesOut: number;
  bytesIn: number;
}

export class RoundTripProxy {
  readonly #listener: Deno.Listener;
  readonly #conns = new Set<Deno.Conn>();
  #counts: RoundTrips = { roundTrips: 0, bytesOut: 0, bytesIn: 0 };
  readonly port: number;
  /** Round trips after this many are held back until `release` (`holdAfter`). */
  #holdAfter = Infinity;
  #held: (() => void)[] = [];

  private constructor(
    listener: Deno.Listener,
    target: Deno.ConnectOptions,
    /** May be changed while the proxy runs. */
    public delayMs: number,
  ) {
    this.#listener = listener;
    this.port = (listener.addr as Deno.NetAddr).port;
    (async () => {
      try {
        for await (const client of listener) this.#relay(client, target);
      } catch {
        // closed
      }
    })();
  }

  /** Starts a proxy to `target` on a free loopback port. */
  static start(target: Deno.ConnectOptions, delayMs = 0): RoundTripProxy {
    return new RoundTripProxy(Deno.listen({ hostname: "127.0.0.1", port: 0 }), target, delayMs);
  }

  /** The counts since the last `take` (or the start), and a fresh count from now. */
  take(): RoundTrips {
    const counts = this.#counts;
    this.#counts = { roundTrips: 0, bytesOut: 0, bytesIn: 0 };
    return counts;
  }

  /**
   * Holds back every round trip after the next `roundTrips` (counted from the last `take`) until
   * `release`: a request answered while one is held did not wait for it.
   */
  holdAfter(roundTrips: number): void {
    this.#holdAfter = this.#counts.roundTrips + roundTrips;
  }

  /** Lets every held round trip through, and holds no more. */
  release(): void {
    this.#holdAfter = Infinity;
    for (const go of this.#held.splice(0)) go();
  }

  /** Drops every connection: the next query needs a new one. */
  dropConnections(): void {
    for (const conn of this.#conns) closeQuietly(conn);
    this.#conns.clear();
  }

  close(): void {
    closeQuietly(this.#listener);
    this.dropConnections();
  }

  async #relay(client: Deno.Conn, target: Deno.ConnectOptions): Promise<void> {
    let server: Deno.Conn;
    try {
      server = await Deno.connect(target);
    } catch {
      closeQuietly(client);
      return;
    }
    // Without this, a write held back by the delay and the next one meet Nagle's algorithm and the
    // peer's delayed acknowledgement: 40 ms stalls that no real network path adds.
    for (const conn of [client, server]) (conn as Deno.TcpConn).setNoDelay?.(true);
    this.#conns.add(client);
    this.#conns.add(server);
    // Whether the server has answered since the client last sent: the client's next bytes then
    // begin a new round trip.
    let answered = true;
    const end = () => {
      for (const conn of [client, server]) {
        closeQuietly(conn);
        this.#conns.delete(conn);
      }
    };
    // The client's bytes are read as they come and written in order behind any delay, so a chunk
    // the client sent before an answer reached it counts in the round trip it belongs to (a
    // pipeline written in pieces is one round trip), even while an earlier chunk is held back.
    (async () => {
      const buffer = new Uint8Array(64 * 1024);
      let writing: Promise<void> = Promise.resolve();
      try {
        while (true) {
          const n = await client.read(buffer);
          if (n === null) break;
          const chunk = buffer.slice(0, n);
          const startsRoundTrip = answered;
          if (startsRoundTrip) this.#counts.roundTrips++;
          const held = startsRoundTrip && this.#counts.roundTrips > this.#holdAfter;
          answered = false;
          this.#counts.bytesOut += n;
          writing = writing.then(async () => {
            if (held) await new Promise<void>((go) => this.#held.push(go));
            if (startsRoundTrip && this.delayMs > 0) {
              await new Promise((resolve) => setTimeout(resolve, this.delayMs));
            }
            let written = 0;
            while (written < n) written += await server.write(chunk.subarray(written));
          });
        }
        await writing;
      } catch {
        // either side went away
      }
    })().finally(end);
    relayBytes(server, client, (n) => {
      answered = true;
      this.#counts.bytesIn += n;
    }).finally(end);
  }
}
