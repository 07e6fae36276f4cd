/**
 * The local server's front door. `Deno.serve` offers no connection limit and no idle or header
 * timeout: idle connections piled up until its accept loop failed with "Too many open files",
 * which ended the process. So the server accepts TCP connections here, counts them, and relays
 * each, once it has sent its first bytes, to `Deno.serve` on a loopback port of its own. At the cap
 * the oldest connection that has sent nothing is closed to make room; when none may go, a new
 * connection is answered 503 and closed at once. While no request of a connection runs, it is closed once IDLE_TIMEOUT_MS
 * pass without a request starting or a byte of an answer going out: an idle connection, headers
 * that trickle in, and a client that stops reading its answer all end there. A request's body has
 * its own deadline (`read_body.ts`). Hosted, the platform's gateway holds the client connections
 * and this front is not used.
 */

/**
 * Longest a connection may go, while none of its requests runs, without starting one (from
 * opening, or from the end of the last) or receiving a byte of an answer.
 */
export const IDLE_TIMEOUT_MS = 10_000;
/**
 * A connection whose request has not arrived whole (its headers, or its body) and which has sent no
 * byte for this long may be closed to make room at the cap: headers that trickle in, an upload that
 * stalls. A client sending a request, even slowly, sends bytes more often than this.
 */
const STALLED_MS = 250;
/** File descriptors kept back from connections (database, store, files, the listeners). */
const RESERVED_FILES = 256;
/** Refusals written at once; past this a connection over the cap is closed without an answer. */
const MAX_REFUSING = 32;
const SMALL_READ = 4 * 1024;
const LARGE_READ = 64 * 1024;

/**
 * The most client connections `openFiles` descriptors allow: each takes three (the client's
 * socket, the relay's socket to the HTTP server, and the HTTP server's end of it).
 */
export function connectionCap(openFiles: number): number {
  return Math.max(16, Math.floor((openFiles - RESERVED_FILES) / 3));
}

const REFUSAL = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n" +
    'Connection: close\r\nContent-Length: 66\r\n\r\n{"status":"error","message":"Too many connections: try again soon"}',
);

/** One client connection and its relay to the HTTP server. */
export class Relay {
  /** Requests of this connection the HTTP server is handling now. */
  running = 0;
  /** Requests this connection has started since it opened. */
  started = 0;
  /** When the connection opened, its last request ended, or a byte of an answer went out. */
  lastActive = Date.now();
  /** When the client last sent a byte. */
  lastReceived = Date.now();
  /** Whether a request of this connection is reading its body from the client now. */
  readingBody = false;
  /** Whether the client has sent a byte yet. */
  spoken = false;
  upstream: Deno.TcpConn | null = null;
  #closed = false;

  constructor(readonly client: Deno.TcpConn, readonly onClose: (relay: Relay) => void) {}

  get remoteAddr(): Deno.NetAddr {
    return this.client.remoteAddr;
  }

  /** A request of this connection reached the HTTP server. */
  requestStarted(): void {
    this.running++;
    this.started++;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Whether it may be closed to make room for a new connection: it has not sent a byte yet, or its
   * first request's headers or a request's body stalled (STALLED_MS). Connections are shed oldest
   * first, so a client that sends a whole request at once is not among them, however fast idle or
   * stalled ones arrive; a kept-alive connection between requests is not either.
   */
  get sheddable(): boolean {
    if (!this.spoken) return true;
    const incomplete = this.started === 0 || this.readingBody;
    return incomplete && Date.now() - this.lastReceived >= STALLED_MS;
  }

  requestEnded(): void {
    this.running--;
    this.readingBody = false;
    this.lastActive = Date.now();
  }

  /**
   * `req` with its body read through a stream that notes while the handler reads it
   * (`readingBody`): a request whose upload stalls may then be shed, one that waits for its
   * answer may not. The stream pulls from the client only as the handler reads.
   */
  watchBody(req: Request): Request {
    if (req.body === null) return req;
    const source = req.body.getReader();
    const ended = () => (this.readingBody = false);
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        this.readingBody = true;
        try {
          const { done, value } = await source.read();
          if (done) {
            ended();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (error) {
          ended();
          controller.error(error);
        }
      },
      cancel: (reason) => {
        ended();
        return source.cancel(reason);
      },
    }, { highWaterMark: 0 });
    // Built from its parts, not from `req`: a copy follows `req`'s abort signal, which Deno.serve
    // then aborts after every answer, and the two cost about 20 µs a request (measured in-process
    // with Deno 2.9). Nothing here reads a request's signal.
    const init = { method: req.method, headers: req.headers, body, duplex: "half" };
    return new Request(req.url, init as RequestInit);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeQuietly(this.client);
    if (this.upstream) closeQuietly(this.upstream);
    this.onClose(this);
  }

  /** Whether the connection has been idle too long at `now`. */
  expired(now: number): boolean {
    return this.running === 0 && now - this.lastActive > IDLE_TIMEOUT_MS;
  }
}

/** Closes a connection or listener that may already be closed (by the peer, or by a sweep). */
export function closeQuietly(closer: { close(): void }): void {
  try {
    closer.close();
  } catch {
    // already closed
  }
}

async function writeAll(to: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await to.write(bytes.subarray(written));
}

/** Copies `from` to `to` until `from` ends; `moved` is told of every chunk. */
async function pump(from: Deno.Conn, to: Deno.Conn, moved?: () => void): Promise<void> {
  // An idle connection holds only a small buffer; a read that fills it uses a large one next.
  const small = new Uint8Array(SMALL_READ);
  let buffer = small;
  while (true) {
    const n = await from.read(buffer);
    if (n === null) return;
    moved?.();
    await writeAll(to, buffer.subarray(0, n));
    if (n === buffer.length) buffer = buffer === small ? new Uint8Array(LARGE_READ) : buffer;
    else buffer = small;
  }
}

/** Accepts client connections on `listener` and relays them to the HTTP server at `upstreamPort`. */
export class ConnectionFront {
  readonly #listener: Deno.TcpListener;
  readonly #upstreamPort: number;
  readonly #relays = new Set<Relay>();
  /** Relays by the local port of their socket to the HTTP server (its `remoteAddr.port`). */
  readonly #byUpstreamPort = new Map<number, Relay>();
  readonly #sweep: ReturnType<typeof setInterval>;
  readonly maxConnections: number;
  /** Connections refused at the cap since start. */
  refused = 0;
  /** Connections closed at the cap to let a new one in (see `sheddable`). */
  shed = 0;
  /** Refusals still being written: each holds a descriptor, so they are bounded too. */
  #refusing = 0;

  constructor(listener: Deno.TcpListener, upstreamPort: number, maxConnections: number) {
    this.#listener = listener;
    this.#upstreamPort = upstreamPort;
    this.maxConnections = maxConnections;
    this.#sweep = setInterval(() => {
      const now = Date.now();
      for (const relay of this.#relays) if (relay.expired(now)) relay.close();
    }, 1_000);
    this.#accept();
  }

  get addr(): Deno.NetAddr {
    return this.#listener.addr;
  }

  get open(): number {
    return this.#relays.size;
  }

  /** The client connection behind a connection the HTTP server received from this front. */
  relayFor(upstream: Deno.NetAddr): Relay | undefined {
    return this.#byUpstreamPort.get(upstream.port);
  }

  /** Stops accepting; connections already open stay until `closeAll`. */
  stopAccepting(): void {
    closeQuietly(this.#listener);
  }

  /**
   * Resolves once every relay has ended. After the HTTP server shuts down, each relay still copies
   * the end of its last answer to the client before it sees the close; cutting them at once would
   * lose it.
   */
  async ended(): Promise<void> {
    while (this.#relays.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  closeAll(): void {
    this.stopAccepting();
    clearInterval(this.#sweep);
    for (const relay of this.#relays) relay.close();
  }

  async #accept(): Promise<void> {
    while (true) {
      let client: Deno.TcpConn;
      try {
        client = await this.#listener.accept();
      } catch (error) {
        if (error instanceof Deno.errors.BadResource) return; // the listener was closed
        // Out of descriptors (other files), or a connection reset before it was accepted: the
        // loop must outlive it, so it waits a moment and accepts again.
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (this.#relays.size >= this.maxConnections) {
        // Lets the reads of connections accepted just before this one finish first: a client
        // that sent its request at once is then relayed, and not taken for an idle one.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (this.#relays.size >= this.maxConnections && !this.#shedOne()) {
          this.refused++;
          this.#refuse(client);
          continue;
        }
      }
      this.#relay(client);
    }
  }

  /** Closes the oldest connection that may make room (see `sheddable`); false if none may. */
  #shedOne(): boolean {
    for (const relay of this.#relays) {
      if (relay.sheddable) {
        this.shed++;
        relay.close();
        return true;
      }
    }
    return false;
  }

  #refuse(client: Deno.TcpConn): void {
    if (this.#refusing >= MAX_REFUSING) return closeQuietly(client);
    this.#refusing++;
    client.write(REFUSAL).catch(() => {}).finally(() => {
      this.#refusing--;
      closeQuietly(client);
    });
  }

  async #relay(client: Deno.TcpConn): Promise<void> {
    const relay = new Relay(client, (closed) => {
      this.#relays.delete(closed);
      if (closed.upstream) this.#byUpstreamPort.delete(closed.upstream.localAddr.port);
    });
    this.#relays.add(relay);
    let upstream: Deno.TcpConn;
    try {
      client.setNoDelay(true);
      // Until the client sends its first bytes it holds one descriptor and the HTTP server knows
      // nothing of it, so closing it to make room (`sheddable`) churns only this front's sockets.
      const first = new Uint8Array(SMALL_READ);
      const n = await client.read(first);
      if (n === null) return relay.close();
      relay.spoken = true;
      relay.lastReceived = relay.lastActive = Date.now();
      upstream = await Deno.connect({ hostname: "127.0.0.1", port: this.#upstreamPort });
      // Closed meanwhile (shed, idle, shutting down): the new socket would never be closed.
      if (relay.closed) {
        upstream.close();
        return;
      }
      upstream.setNoDelay(true);
      relay.upstream = upstream;
      this.#byUpstreamPort.set(upstream.localAddr.port, relay);
      await writeAll(upstream, first.subarray(0, n));
    } catch {
      relay.close();
      return;
    }
    const touch = () => (relay.lastActive = Date.now());
    const received = () => (relay.lastReceived = Date.now());
    await Promise.all([
      // Bytes from the client keep nothing open: headers that trickle in must not hold a slot.
      pump(client, upstream, received).then(
        // The client finished sending: the answer may still come back.
        () => upstream.closeWrite().catch(() => relay.close()),
        () => relay.close(),
      ),
      pump(upstream, client, touch).finally(() => relay.close()),
    ]).catch(() => {});
    relay.close();
  }
}
