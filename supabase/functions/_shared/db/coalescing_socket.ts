/**
 * The database socket, with everything postgres.js writes in one turn of the event loop sent in
 * one write.
 *
 * Why: postgres.js buffers a pipeline and flushes it on `setImmediate`, except that it writes at
 * once whenever its buffer reaches 1 KB. A transaction whose text passes 1 KB (any write with its
 * values written in, `literal_values.ts`) then went out in two writes, and under Deno the second
 * reached Postgres only after the first had been answered: a round trip of waiting, measured by
 * `deno task bench:round-trips`. Corked until two turns later (after postgres.js's own flush),
 * the pieces leave together.
 */
import net from "node:net";
import { setImmediate } from "node:timers";

/** The connection options postgres.js hands its `socket` factory (the parts used here). */
interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/**
 * A socket connecting to the first host (or the Unix socket path). It is handed over while it
 * connects, as postgres.js's own is: what it writes waits for the connection, and a refusal, a
 * close or its connect timeout reach postgres.js as they do on its own socket.
 */
export function coalescingSocket(options: SocketOptions): net.Socket {
  const socket = options.path
    ? net.connect(options.path)
    : net.connect(options.port[0] ?? 5432, options.host[0] ?? "localhost");
  // postgres.js names the server by `socket.host` when it starts TLS.
  Object.assign(socket, { host: options.host[0] });
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(() =>
        setImmediate(() => {
          corked = false;
          socket.uncork();
        })
      );
    }
    return write(...args);
  }) as typeof socket.write;
  return socket;
}
