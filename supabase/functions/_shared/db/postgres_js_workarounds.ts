/**
 * Every way this project bends postgres.js 3.4.9, and the platform's Deno 2.1 under it, in one
 * module. The pool (pool.ts) takes `workaroundOptions(url)` into its options, keeps its pools in a
 * `ReplaceablePool` and wraps each reservation in `withLiteralValues`; the connection watch
 * (connection_watch.ts) attaches `ConnectionHooks` and sends queries through `refusedWhenSent`.
 * Nothing else knows of them. Each names its upstream issue (or, where none is filed, the
 * measurement), the test that shows the defect on the unpatched dependency
 * (postgres_js_workarounds_test.ts, or the fault test named) and when it can be deleted.
 *
 * 1. `setImmediate` (Deno before 2.6, the platform's 2.1 among them): the runtime runs Node's
 *    `setImmediate` as a timer of at least 1 ms, and postgres.js flushes every write on one;
 *    installed as the global postgres.js names, on those runtimes only (measured: 2.2 to 2.5 wait
 *    about 1.1 ms, 2.6 to 2.9 about 4 µs). Delete with the platform's upgrade past 2.5: when "the
 *    runtime's setImmediate waits a timer tick" fails on the platform's Deno.
 * 2. No type fetching, our array types instead: `fetch_types` costs each new connection a round
 *    trip and about 9.5 KB (porsager/postgres#1219, #952); without it, `reserve()` on a cold pool
 *    never settles (porsager/postgres#751, fix proposed in porsager/postgres#1220), repaired in
 *    `repairReading` (1). Delete both once a release carries that fix: "reserve() on a cold pool
 *    without fetch_types never settles" then fails.
 * 3. A terminated backend's error reported to the next caller of the reconnected connection:
 *    `repairReading` (2). No upstream issue found; shown by tests/faults_connection_test.ts
 *    (about one run in eight without it). Delete when that test stays green without it. The
 *    ReadyForQuery it supplies is the likely source of statements completed with no rows and no
 *    command while Postgres restarts (tests/faults_restart_test.ts saw them as 500s): the
 *    transaction runner takes such an answer for a lost connection (`ConnectionWatch`).
 * 4. A write cancelled as the connection ends leaves the connection unable to write (or, under
 *    Deno 2.1's timers, writes to a dropped socket and ends the process): `endsAfterWrites`
 *    (porsager/postgres#1066, #1154; denoland/deno#34667). Without it (and so without the end
 *    hook of 3), tests/faults_connection_test.ts failed in each of six runs; delete when it stays
 *    green without it.
 * 5. A pipeline past 1 KB leaves in two writes, the second waiting a round trip under Deno:
 *    `coalesceWrites`. No upstream issue; measured by `deno task bench:round-trips`: without it,
 *    the requests past 1 KB (create-spell, create-content-source, update-character unprepared)
 *    take 2 round trips instead of 1.
 * 6. An unnamed statement with parameters waits for Postgres to describe them before anything
 *    behind it is sent (postgres.js sends Parse, Describe, Flush and waits): behind the pooler
 *    (`DATABASE_PREPARE=false`) a request costs 5 to 9 round trips instead of 1 (bench:round-trips
 *    without it). Values are written in as literals (`withLiteralValues`); its escaping is fuzzed
 *    against Postgres in "sqlLiteral() is read back by Postgres as exactly the value". Delete when
 *    postgres.js sends unnamed statements without waiting for their description
 *    (`bench:round-trips` with `prepare off` then shows 1 round trip without it).
 * 7. Through TLS the type fetch runs in a promise nothing awaits: a connection lost during it
 *    rejected unhandled and ended the process. Such rejections are absorbed (`absorbLostFetches`).
 *    Delete with 2.
 * 8. A released reservation still sends its queries, on the connection it no longer holds, and a
 *    query is sent when it is awaited, not when it is made: a query a handler made in time but
 *    awaited after its transaction ended would run in another request's transaction. No upstream
 *    issue found; shown by "a released reservation still sends its queries". `refusedWhenSent`
 *    checks again as the query is sent. Delete when postgres.js refuses a released reservation's
 *    queries and the runner sends no COMMIT ahead of a handler's statements (the same check keeps
 *    a statement from following a COMMIT sent ahead).
 * 9. A `reserve()` queued while its connection is terminated never settles
 *    (porsager/postgres#1195, shown by the test of that name): after a restart under load the
 *    pool lost its reservations. `ReplaceablePool` replaces a pool that stopped handing out
 *    connections. Delete it when that test fails.
 * 10. A reservation is told nothing when its connection closes, a query the close left
 *    unanswered may stay queued for the reconnect (seen through a transaction-mode pooler: the
 *    request waited out its deadline), and a reservation whose database froze cannot be dropped
 *    (`release()` hands it back as open). `ConnectionHooks` uses the two internal hooks `sql.begin`
 *    uses. No upstream issue found; shown by "database frozen or locked: calls answer 503 within
 *    seconds" (tests/faults_restart_test.ts) and "a request whose connection is cut mid-query
 *    answers 503" (tests/faults_connection_test.ts). Delete when postgres.js rejects a closed
 *    reservation's queued queries and can end a reservation's connection.
 */
import net from "node:net";
import { setImmediate as nodeSetImmediate } from "node:timers";
import { Buffer } from "node:buffer";
import type postgres from "postgres";
import { isConnectionError } from "../db_errors.ts";
import { hexOf } from "../hex.ts";
import { log } from "../log.ts";

// ---- 1. setImmediate without the platform's delay ----

// Deno 2.1's timers round its 0 ms to 1.1-1.3 ms: each statement sent waited about 4 ms (two turns
// of `coalesceWrites` behind postgres.js's flush), a new connection about 11 ms, where the database
// answered in 0.5 ms. Here a turn is a message through a `MessageChannel` (about 0.1 ms): every
// immediate queued before it arrives runs in it, in order, and those queued meanwhile wait for the
// next, as in Node. Unlike Node, microtasks an immediate queues run after the whole turn.

/** An immediate's handle, as `setImmediate` returns it. */
class Immediate {
  cancelled = false;
  constructor(readonly run: () => void) {}
  // Node's handle can be unreferenced; a turn here never keeps a process alive past itself.
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
}

let queued: Immediate[] = [];
/** The channel turns are sent through while they keep coming; closed after a turn that queues none. */
let channel: MessageChannel | null = null;

function runTurn(): void {
  const turn = queued;
  queued = [];
  for (const immediate of turn) {
    if (immediate.cancelled) continue;
    try {
      immediate.run();
    } catch (e) {
      // The rest of the turn still runs; the error is uncaught, as a throwing immediate's is in Node.
      reportError(e);
    }
  }
  if (queued.length > 0) {
    channel!.port2.postMessage(null);
  } else {
    // A port that listens keeps the process alive: an idle one is closed, so that it may end.
    channel!.port1.close();
    channel!.port2.close();
    channel = null;
  }
}

function scheduleTurn(): void {
  if (channel !== null) return; // the turn running now sends the next
  channel = new MessageChannel();
  channel.port1.onmessage = runTurn;
  channel.port2.postMessage(null);
}

function setImmediate<A extends unknown[]>(
  fn: (...args: A) => void,
  ...args: A
): Immediate {
  const immediate = new Immediate(() => fn(...args));
  if (queued.length === 0) scheduleTurn();
  queued.push(immediate);
  return immediate;
}

function clearImmediate(immediate: unknown): void {
  if (immediate instanceof Immediate) immediate.cancelled = true;
}

/** The immediates `installImmediate` puts in place of a delaying runtime's. */
export const channelImmediates = { setImmediate, clearImmediate };

/**
 * Whether a runtime reporting this `Deno.version.deno` waits a timer tick on Node's `setImmediate`
 * (measured above). The platform's edge runtime reports itself with the Deno it is compatible with
 * ("supabase-edge-runtime-1.74.2 (compatible with Deno v2.1.4)"); a version this cannot read is
 * taken to delay, as the replacement only costs CPU where it is not needed.
 */
export function delaysImmediates(denoVersion: string): boolean {
  const version = /compatible with Deno v(\d+)\.(\d+)/.exec(denoVersion) ??
    /^(\d+)\.(\d+)/.exec(denoVersion);
  if (!version) return true;
  const [major, minor] = [Number(version[1]), Number(version[2])];
  return major < 2 || (major === 2 && minor < 6);
}

const runtimeDelaysImmediates = delaysImmediates(Deno.version.deno);

/**
 * On a runtime that delays them, makes these the `setImmediate` and `clearImmediate` npm packages
 * see (postgres.js names them as globals), before any connection opens.
 */
function installImmediate(): void {
  if (runtimeDelaysImmediates) Object.assign(globalThis, { setImmediate, clearImmediate });
}

/** The immediates postgres.js flushes on: what is queued on them runs after those queued before. */
const nextImmediate: (fn: () => void) => unknown = runtimeDelaysImmediates
  ? setImmediate
  : nodeSetImmediate;

// ---- 2-5. The database socket ----

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
function databaseSocket(options: SocketOptions): net.Socket {
  const socket = options.path
    ? net.connect(options.path)
    : net.connect(options.port[0] ?? 5432, options.host[0] ?? "localhost");
  // postgres.js names the server by `socket.host` when it starts TLS.
  Object.assign(socket, { host: options.host[0] });
  const writes = coalesceWrites(socket);
  // Through TLS the messages cannot be read here (the types are fetched there: 2), and postgres.js
  // listens to the TLS socket over this one, so the end is not put off either.
  const repaired = options.fetch_types === false && !options.ssl
    ? repairReading(socket, writes)
    : null;
  endsAfterWrites(socket, repaired?.beforeEnd ?? (() => {}));
  return socket;
}

/** Runs `fn` two turns of the event loop later, after what postgres.js schedules meanwhile. */
function afterScheduledWrites(fn: () => void): void {
  nextImmediate(() => nextImmediate(fn));
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
 * (1), cancel for good, so there the connection is left unable to write instead.)
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
 * reaches 1 KB: a transaction past 1 KB (any write with its values written in, 6)
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
      afterScheduledWrites(() => {
        corked = false;
        socket.uncork();
      });
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
 * messages cannot be read here, and the types are fetched there (2).
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

// ---- 2. The array types, parsed here instead of fetched ----

// The array types the project's columns and functions use: a new connection's type fetch cost
// 25-30 ms of its first request on Deno 2.1.
const INT4_ARRAY = 1007;
const TEXT_ARRAY = 1009;
const VARCHAR_ARRAY = 1015;
const INT8_ARRAY = 1016;
const UUID_ARRAY = 2951;

type Element = string | number | null;
type ArrayValue = Element | ArrayValue[];

/** Parses Postgres's text form of an array (`{1,"two",NULL}`, nested for more dimensions). */
export function parseArray(text: string, element: (raw: string) => Element): ArrayValue[] {
  let at = 0;
  const list = (): ArrayValue[] => {
    const items: ArrayValue[] = [];
    at++; // {
    if (text[at] === "}") {
      at++;
      return items;
    }
    while (at < text.length) {
      if (text[at] === "{") {
        items.push(list());
      } else if (text[at] === '"') {
        let value = "";
        at++;
        while (text[at] !== '"') {
          if (text[at] === "\\") at++;
          if (at >= text.length) throw new Error("Malformed array from the database");
          value += text[at++];
        }
        at++;
        items.push(element(value));
      } else {
        const start = at;
        while (at < text.length && text[at] !== "," && text[at] !== "}") at++;
        const raw = text.slice(start, at);
        items.push(raw === "NULL" ? null : element(raw));
      }
      if (text[at++] === "}") return items;
    }
    throw new Error("Malformed array from the database");
  };
  // A lower bound other than 1 is written before the value (`[0:1]={a,b}`); none of ours has one.
  const brace = text.indexOf("{");
  at = brace;
  return list();
}

/** An array in Postgres's text form (`{"1","two",NULL}`): objects in it as JSON, dates ISO 8601. */
export function arrayText(items: readonly unknown[]): string {
  const elements = items.map((item) => {
    if (item === null || item === undefined) return "NULL";
    if (Array.isArray(item)) return arrayText(item);
    const text = item instanceof Date
      ? item.toISOString()
      : typeof item === "object"
      ? JSON.stringify(item)
      : String(item);
    return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  });
  return `{${elements.join(",")}}`;
}

function arrayType(oid: number, element: (raw: string) => Element): postgres.PostgresType {
  return {
    to: oid,
    from: [oid],
    serialize: (value: unknown[]) => arrayText(value),
    parse: (text: string) => parseArray(text, element),
  };
}

/** The array types for postgres.js's `types` option. */
const ARRAY_TYPES = {
  int4Array: arrayType(INT4_ARRAY, Number),
  int8Array: arrayType(INT8_ARRAY, Number),
  textArray: arrayType(TEXT_ARRAY, String),
  varcharArray: arrayType(VARCHAR_ARRAY, String),
  uuidArray: arrayType(UUID_ARRAY, String),
};

// ---- 6. Values written in as literals ----

// Wherever a statement goes unnamed (every statement with `DATABASE_PREPARE=false`, and `unsafe`
// without `prepare`), each caller value becomes a literal Postgres reads back as exactly that
// value, typed as an untyped parameter would be (a quoted constant of unknown type). Escaping:
// every value is an `E'...'` constant in which each backslash and each quote is doubled, read back
// verbatim whatever `standard_conforming_strings` says; NUL, which no Postgres text may hold, is
// refused as Postgres refuses it in a parameter. Statement text still comes from server code only.

/** A literal that Postgres reads as `value`, the way a parameter of unknown type would be read. */
export function sqlLiteral(value: unknown): string {
  if (value === null) return "NULL";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
    case "string":
      return quoted(String(value));
    case "bigint":
      return `${quoted(String(value))}::int8`;
    case "undefined":
      throw Object.assign(new Error("Undefined values are not allowed"), {
        code: "UNDEFINED_VALUE",
      });
  }
  if (value instanceof Date) return `${quoted(value.toISOString())}::timestamptz`;
  if (value instanceof Uint8Array) return `'\\x${hexOf(value)}'::bytea`;
  if (Array.isArray(value)) return quoted(arrayText(value));
  return quoted(JSON.stringify(value));
}

function quoted(text: string): string {
  if (text.includes("\0")) {
    throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: "22021",
    });
  }
  return `E'${text.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** postgres.js's typed value (`sql.json(x)` and `sql.typed(x, oid)`). */
interface TypedParameter {
  value: unknown;
  type: number;
}

function isTypedParameter(value: unknown): value is TypedParameter {
  if (typeof value !== "object" || value === null) return false;
  // By its class, never by its own properties: a caller's JSON may name any `constructor`.
  const prototype = Object.getPrototypeOf(value);
  return prototype !== Object.prototype && prototype !== null &&
    prototype.constructor?.name === "Parameter" &&
    typeof (value as { type?: unknown }).type === "number";
}

/** The literal of a value or of a postgres.js typed value (JSON as JSON, whatever its value). */
function literalOf(value: unknown): string {
  if (!isTypedParameter(value)) return sqlLiteral(value);
  if (value.type === JSONB || value.type === JSON_TYPE) {
    return `${quoted(JSON.stringify(value.value))}::${value.type === JSONB ? "jsonb" : "json"}`;
  }
  return sqlLiteral(value.value);
}

const JSON_TYPE = 114;
const JSONB = 3802;

/**
 * Whether postgres.js would send `value` as a parameter: plain values and its typed values, not its
 * query fragments, identifiers and helpers (class instances other than dates and byte arrays).
 */
function isValue(value: unknown): boolean {
  if (isTypedParameter(value)) return true;
  if (value === null || typeof value !== "object") return true;
  if (value instanceof Date || value instanceof Uint8Array) return true;
  if (Array.isArray(value)) return !(value[0] instanceof Promise);
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** `text` with each `$n` replaced by the literal of `params[n - 1]`. */
function withLiterals(text: string, params: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index >= params.length) throw new Error(`No value for $${n}`);
    return literalOf(params[index]);
  });
}

/**
 * `sql` with caller values written in as literals wherever its statement would go unnamed: with
 * `prepared` false (the pool prepares nothing), everywhere: in tagged templates, in the row
 * helpers (`sql(values, keys)`: objects and arrays of numbers; an array of strings stays
 * identifiers) and in `unsafe(text, params)`. With `prepared` true, only in an `unsafe` that does
 * not ask for `prepare: true`. A value this misses is still sent as a parameter, correct and one
 * round trip slower.
 */
export function withLiteralValues<S extends postgres.Sql>(sql: S, prepared: boolean): S {
  const fragment = (value: unknown) => sql.unsafe(literalOf(value));
  const asFragments = (row: unknown): unknown => {
    if (Array.isArray(row)) {
      return row.every((x) => typeof x === "number") ? row.map(fragment) : row.map(asFragments);
    }
    if (typeof row !== "object" || row === null || !isValue(row)) return row;
    return Object.fromEntries(
      Object.entries(row).map(([key, value]) => [key, isValue(value) ? fragment(value) : value]),
    );
  };
  return new Proxy(sql, {
    apply(target, self, args: unknown[]) {
      if (prepared) return Reflect.apply(target, self, args);
      const [first, ...rest] = args;
      if (Array.isArray(first) && "raw" in first) {
        return Reflect.apply(target, self, [
          first,
          ...rest.map((value) => isValue(value) ? fragment(value) : value),
        ]);
      }
      return Reflect.apply(target, self, [asFragments(first), ...rest]);
    },
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "unsafe") return value;
      return (text: string, params?: unknown, options?: postgres.UnsafeQueryOptions) => {
        if (!Array.isArray(params) || params.length === 0 || (prepared && options?.prepare)) {
          return target.unsafe(text, params as never, options);
        }
        const { prepare: _, ...rest } = options ?? {};
        return target.unsafe(withLiterals(text, params), [], rest);
      };
    },
  });
}

// ---- 8. Queries checked again as they are sent ----

/** The part of a postgres.js query that sends it (on `execute`, `then`, `catch` and the like). */
interface Sendable {
  executed: boolean;
  handle(): Promise<void>;
  reject(error: unknown): void;
}

function isSendable(value: unknown): value is Sendable {
  return typeof value === "object" && value !== null && "handle" in value && "executed" in value;
}

/**
 * `query`, failing with `refusal()` instead of being sent if that names a reason when postgres.js
 * sends it (a microtask after `then`, so after `await`, or on `execute`). Anything that is not a
 * query (a fragment's helper) is returned as it is.
 */
export function refusedWhenSent<T>(query: T, refusal: () => Error | null): T {
  if (!isSendable(query)) return query;
  const send = query.handle.bind(query);
  query.handle = () => {
    const refused = query.executed ? null : refusal();
    if (refused === null) return send();
    query.executed = true;
    query.reject(refused);
    return Promise.resolve();
  };
  return query;
}

// ---- 9. A pool replaced when it stops handing out connections ----

/**
 * A pool replaced by a new one once it has lost track of its reservations (9): a reservation that
 * waits out its bound (`boundMs`) while the pool holds fewer than `size` means it lost some. It is
 * then ended (its connections terminated, whatever waits on it refused, 503) and a new one opened,
 * at most once per bound.
 */
export class ReplaceablePool {
  #pool: postgres.Sql;
  #held = 0;
  #replacedAt = 0;
  /** Whichever pool is current, as one `Sql`. */
  readonly sql: postgres.Sql;

  constructor(
    readonly open: () => postgres.Sql,
    readonly size: number,
    readonly boundMs: number,
  ) {
    this.#pool = open();
    this.sql = new Proxy(this.#pool, {
      apply: (_target, self, args) => Reflect.apply(this.#pool, self, args),
      get: (_target, property) => Reflect.get(this.#pool, property, this.#pool),
    });
  }

  /** The current pool, to reserve from. */
  get current(): postgres.Sql {
    return this.#pool;
  }

  /** Counts a reservation `from` handed out; returns what gives it back (once). */
  taken(from: postgres.Sql): () => void {
    if (from !== this.#pool) return () => {};
    this.#held++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      if (from === this.#pool) this.#held--;
    };
  }

  /** Told that a reservation asked of `from` waited out its bound. */
  waitedOut(from: postgres.Sql): void {
    if (from !== this.#pool || this.#held >= this.size) return;
    if (Date.now() - this.#replacedAt <= this.boundMs) return;
    const old = this.#pool;
    this.#pool = this.open();
    this.#held = 0;
    this.#replacedAt = Date.now();
    // Terminates its connections and refuses whatever still waits on it.
    old.end({ timeout: 0 }).catch(() => {});
  }
}

// ---- 10. A reserved connection's close, and dropping it ----

/** The part of postgres.js's connection object the hooks use. */
interface PoolConnection {
  onclose: ((error: unknown) => void) | null;
  terminate(): void;
}

/**
 * Hooks on the connection a reservation holds: `onClose` is called when it closes, and
 * `terminate` drops it. postgres.js calls a query's `onexecute` option with the connection it is
 * written to, and a connection's `onclose` when it closes.
 */
export class ConnectionHooks {
  #connection: PoolConnection | null = null;

  constructor(readonly onClose: () => void) {}

  /** Options for the reservation's first statement, which attach the hooks to its connection. */
  readonly options = {
    onexecute: (connection: PoolConnection): boolean => {
      this.#connection = connection;
      connection.onclose = () => this.onClose();
      return true; // keeps the connection writable for the next pipelined query
    },
  } as unknown as postgres.UnsafeQueryOptions;

  /** Drops the connection: whatever waits on it is refused, and it is never reused. */
  terminate(): void {
    this.#connection?.terminate();
  }

  /** Stops listening for the close (the connection goes back to the pool). */
  detach(): void {
    if (this.#connection) this.#connection.onclose = null;
  }
}

// ---- Installing them ----

/** postgres.js takes a socket factory, which its types do not declare. */
type SocketOption = { socket: typeof databaseSocket };

/**
 * Whether connections to `url` use TLS, by postgres.js's own reading of it: `sslmode` or `ssl` in
 * its query, or `sslrootcert=system`.
 */
function usesTls(url: string): boolean {
  const query = new URL(url).searchParams;
  if (query.get("sslrootcert") === "system") return true;
  const mode = query.get("sslmode") ?? query.get("ssl");
  return mode !== null && !["disable", "false"].includes(mode);
}

let installed = false;

/** Absorbs a lost connection's unhandled rejection (7); any other still ends the process. */
function absorbLostFetches(): void {
  globalThis.addEventListener("unhandledrejection", (event) => {
    if (!isConnectionError(event.reason)) return;
    event.preventDefault();
    log.warn("database_connection_lost", { reason: String(event.reason).slice(0, 200) });
  });
}

/**
 * The options a pool connecting to `url` takes for these workarounds (its `types` spread into the
 * pool's own); installs the process-wide ones (1, 7) on first use.
 */
export function workaroundOptions(url: string): {
  fetch_types: boolean;
  types: typeof ARRAY_TYPES;
} {
  if (!installed) {
    installed = true;
    installImmediate();
    absorbLostFetches();
  }
  const socket: SocketOption = { socket: databaseSocket };
  // Through TLS the messages cannot be read (`repairReading`), so the types are fetched there.
  return { ...socket, fetch_types: usesTls(url), types: ARRAY_TYPES };
}
