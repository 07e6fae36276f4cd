/**
 * The database socket postgres.js is given (its `socket` option): it sends a pipeline in one write
 * (`coalesceWrites`), repairs two faults of postgres.js 3.4.9 in reading a connection
 * (`repairReading`), and ends only after the writes postgres.js has scheduled (`endsAfterWrites`).
 */
import net from "node:net";
import { Buffer } from "node:buffer";
import { setImmediate } from "../immediate.ts";

/** The connection options postgres.js hands its `socket` factory (the parts used here). */
interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
  fetch_types?: boolean;
  ssl?: unknown;
}

/**
 * A socket connecting to the first host (or the Unix socket path). It is handed over while it
 * connects, as postgres.js's own is: what it writes waits for the connection, and a refusal, a
 * close or its connect timeout reach postgres.js as they do on its own socket.
 */
export function databaseSocket(options: SocketOptions): net.Socket {
  const socket = options.path
    ? net.connect(options.path)
    : net.connect(options.port[0] ?? 5432, options.host[0] ?? "localhost");
  // postgres.js names the server by `socket.host` when it starts TLS.
  Object.assign(socket, { host: options.host[0] });
  const writes = coalesceWrites(socket);
  // Through TLS the messages cannot be read here (pool.ts fetches the types there), and postgres.js
  // listens to the TLS socket over this one, so the end is not put off either.
  const repaired = options.fetch_types === false && !options.ssl
    ? repairReading(socket, writes)
    : null;
  endsAfterWrites(socket, repaired?.beforeEnd ?? (() => {}));
  return socket;
}

/** Runs `fn` two turns of the event loop later, after what postgres.js schedules meanwhile. */
function afterScheduledWrites(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}

/**
 * postgres.js schedules its buffered write with `setImmediate`; when the connection ends it cancels
 * that write with `clearImmediate` and drops its socket, but keeps the cancelled timer's handle,
 * and the connection object then writes nothing ever again: each time the pool reopened it, its
 * start-up message waited for a flush that never came, and a request that was given it waited out
 * its 3 s bound (503). A backend terminated mid-transaction left one such connection behind, as the
 * transaction's COMMIT was written on reading its error. (With Node's timers of the platform's Deno
 * 2.1 the cancelled write ran anyway, on the dropped socket, and ended the process: an instance
 * whose database refused its first connection never answered. The pool's own immediates,
 * `immediate.ts`, cancel for good, so there the connection is left unable to write instead.)
 *
 * The socket's end (`error`, `close`) reaches postgres.js only after any write it had scheduled
 * (which then clears the handle): two turns later `beforeEnd` runs (`repairReading` may hand
 * postgres.js a ReadyForQuery then, which makes it write again), and two turns after that the end
 * is delivered. A write to a socket that can no longer write is dropped, as the server is gone.
 * This narrows the fault rather than closing it: a write postgres.js schedules in the very turn
 * the end reaches it is still cancelled that way, and the pool then replaces itself after the 3 s
 * wait of the request that meets the connection (`reserveConnection`, pool.ts).
 */
function endsAfterWrites(socket: net.Socket, beforeEnd: () => void): void {
  const emit = socket.emit.bind(socket) as (event: string, ...args: unknown[]) => boolean;
  let ending = false;
  socket.emit = ((event: string, ...args: unknown[]) => {
    if (event !== "error" && event !== "close") return emit(event, ...args);
    afterScheduledWrites(() => {
      if (!ending) {
        ending = true;
        beforeEnd();
      }
      afterScheduledWrites(() => emit(event, ...args));
    });
    return true;
  }) as typeof socket.emit;
}

/**
 * Everything postgres.js writes in one turn of the event loop leaves in one write. It buffers a
 * pipeline and flushes it on `setImmediate`, except that it writes at once whenever its buffer
 * reaches 1 KB: a transaction past 1 KB (any write with its values written in, literal_values.ts)
 * went out in two writes, and under Deno the second reached Postgres only after the first had been
 * answered, a round trip of waiting (`deno task bench:round-trips`). Corked until two turns later,
 * after postgres.js's own flush, the pieces leave together. Returns how many writes were made.
 */
function coalesceWrites(socket: net.Socket): () => number {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let count = 0;
  let corked = false;
  socket.write = ((...args: unknown[]) => {
    // postgres.js flushes its buffer on an immediate it clears when a large write flushes first;
    // Node's timers of the platform's Deno 2.1 were seen to run the cleared one anyway, writing
    // its emptied buffer (null), which the stream refuses by throwing where nothing catches it: the
    // function died. The pool's own immediates cancel for good; should one run, there is nothing
    // to write.
    if (args[0] === null || args[0] === undefined) return true;
    if (!socket.writable) return true; // ended (`endsAfterWrites`): nobody to write to
    count++;
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
  return () => count;
}

const READY_FOR_QUERY = 0x5a; // 'Z'
const ERROR_RESPONSE = 0x45; // 'E'
const IDLE = 0x49; // 'I'
/** A ReadyForQuery message (idle), as the server sends it. */
const READY = () => Buffer.from([READY_FOR_QUERY, 0, 0, 0, 5, IDLE]);
/** What the client sends that the server answers with one ReadyForQuery each. */
const QUERY = 0x51; // 'Q'
const SYNC = 0x53; // 'S'
/** What ends a statement's description on its first run: answered without a ReadyForQuery. */
const FLUSH = 0x48; // 'H'
/** The type given to the start-up message, which has none on the wire. */
const STARTUP = 0;

/**
 * Where the messages of one direction begin and end (a type byte and a 4-byte length; the client's
 * first message, its start-up, has no type byte), so the repairs below know which message passed
 * last, whether it passed whole, and how many of each kind.
 */
class MessageFraming {
  #header = new Uint8Array(5);
  #headerBytes = 0;
  #bodyLeft = 0;
  #untyped: boolean;
  /** The type of the last message whose header was read. */
  lastType = 0;

  constructor(
    readonly onMessage: (type: number) => void,
    options: { startsUntyped: boolean },
  ) {
    this.#untyped = options.startsUntyped;
  }

  read(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#bodyLeft > 0) {
        const taken = Math.min(this.#bodyLeft, chunk.length - at);
        this.#bodyLeft -= taken;
        at += taken;
        continue;
      }
      const headerLength = this.#untyped ? 4 : 5;
      this.#header[this.#headerBytes++] = chunk[at++]!;
      if (this.#headerBytes === headerLength) {
        this.#headerBytes = 0;
        const view = new DataView(this.#header.buffer);
        this.lastType = this.#untyped ? STARTUP : this.#header[0]!;
        this.#bodyLeft = view.getUint32(headerLength - 4) - 4;
        this.#untyped = false;
        this.onMessage(this.lastType);
      }
    }
  }

  /** Whether the last message was read whole. */
  get whole(): boolean {
    return this.#bodyLeft === 0 && this.#headerBytes === 0;
  }
}

/**
 * Two repairs of postgres.js 3.4.9's reading of a connection, both by handing it a ReadyForQuery the
 * server did not send (nothing is sent to the server). Plain connections only: through TLS the
 * messages cannot be read here, and the pool fetches the types there (pool.ts).
 *
 * 1. Without `fetch_types`, postgres.js never hands a new connection to the reservation that opened
 *    it (`sql.reserve()`, how every request transaction starts): at the first ReadyForQuery it
 *    returns before the pool learns the connection is open, and the reservation waits for good. A
 *    second ReadyForQuery takes the path that hands it over. It is given once the first has been
 *    read, if postgres.js wrote nothing in answer (a connection opened for a query writes that
 *    query at once; one opened for a reservation waits).
 * 2. When the server ends a connection with an error while a statement is in flight (a terminated
 *    backend: FATAL, then close), postgres.js keeps that error and, once the connection object
 *    reconnects for someone else, fails their first statement with it: after one backend was
 *    terminated, an unrelated request answered 503 "terminating connection due to administrator
 *    command" (tests/faults_connection_test.ts, about one run in eight). Given the ReadyForQuery
 *    that would have followed the error, postgres.js answers the statement that met it and forgets
 *    the error. Only while the server owes an answer (a ReadyForQuery for each Query or Sync sent,
 *    or the description a statement's first run asks for, counted from what is written): an error
 *    that ends the start-up (too many clients) or an idle connection has no statement to answer,
 *    and a ReadyForQuery then would hand the closing connection to a waiting caller. (Counting
 *    writes instead, as at first, missed the error of a transaction sent in one write once the
 *    server had answered its first statements: the next request, given the reopened connection,
 *    failed with it.)
 */
function repairReading(socket: net.Socket, writes: () => number): { beforeEnd: () => void } {
  // Answers the server owes: one ReadyForQuery for the start-up and for each Query or Sync sent,
  // and, while a description was asked for with no Sync behind it yet, the description.
  let owed = 0;
  let describing = false;
  const sent = new MessageFraming((type) => {
    if (type === STARTUP || type === QUERY || type === SYNC) {
      owed++;
      describing = false;
    } else if (type === FLUSH) {
      describing = true;
    }
  }, { startsUntyped: true });
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    if (args[0] instanceof Uint8Array) sent.read(args[0]);
    return write(...args);
  }) as typeof socket.write;

  const emit = socket.emit.bind(socket) as (event: string, ...args: unknown[]) => boolean;
  let readyMessages = 0;
  const received = new MessageFraming((type) => {
    if (type === READY_FOR_QUERY) readyMessages++;
  }, { startsUntyped: false });
  socket.emit = ((event: string, ...args: unknown[]) => {
    if (event !== "data" || !(args[0] instanceof Uint8Array)) return emit(event, ...args);
    const wasReady = readyMessages > 0;
    received.read(args[0]);
    if (wasReady || readyMessages === 0) return emit(event, ...args);
    const written = writes(); // before postgres.js reads the message and answers it
    const handled = emit(event, ...args);
    // Checked after postgres.js's own flush of whatever it wrote on reading that message.
    afterScheduledWrites(() => {
      if (writes() === written && !socket.destroyed) emit("data", READY());
    });
    return handled;
  }) as typeof socket.emit;

  return {
    // Decided at the end, from what was written before the server's end of the stream: from then on
    // the socket refuses writes itself (Node's `writeAfterFIN` takes the place of `write`), so the
    // Sync postgres.js writes on reading the error is never seen here.
    beforeEnd: () => {
      const inFlight = readyMessages > 0 && (owed > readyMessages || describing);
      if (inFlight && received.whole && received.lastType === ERROR_RESPONSE) emit("data", READY());
    },
  };
}
