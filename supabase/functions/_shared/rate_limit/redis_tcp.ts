import { createHash } from "node:crypto";
// Batches the commands of one turn (the platform reaches Upstash over HTTPS, not this client).
import { setImmediate } from "node:timers";

/** A value of the Redis protocol (RESP2). */
export type RespValue = string | number | null | RespValue[];

/** An error reply from Redis, such as NOSCRIPT. */
export class RedisReplyError extends Error {
  override name = "RedisReplyError";
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A command waiting for its reply. */
interface Waiter {
  resolve: (v: RespValue) => void;
  reject: (e: Error) => void;
  sentAt: number;
}

/**
 * A minimal Redis client over TCP, enough for the shared window's script (`eval`, `evalsha`).
 * Replies are matched to commands in order on one pipelined connection; a broken connection
 * fails what is in flight and is reopened on the next command. Commands issued while the event
 * loop is busy go out in one write, as concurrent requests each make one.
 */
export class RedisTcp {
  #conn: Deno.TcpConn | null = null;
  #connecting: Promise<Deno.TcpConn> | null = null;
  #pending: Waiter[] = [];
  #outbox: Uint8Array[] = [];
  #flushing = false;
  #watchdog: ReturnType<typeof setTimeout> | null = null;
  #buffer: Uint8Array = new Uint8Array(0);
  readonly #hostname: string;
  readonly #port: number;
  readonly #password: string | undefined;
  /** The database number of the URL's path (`redis://host:6379/9`), 0 when it names none. */
  readonly #database: number;
  /** Scripts' hashes as the caller knows them, mapped to those of the bodies this server runs. */
  readonly #localHashes = new Map<string, string>();

  constructor(url: string, readonly timeoutMs = 1000) {
    const parsed = new URL(url);
    this.#hostname = parsed.hostname || "127.0.0.1";
    this.#port = Number(parsed.port || 6379);
    this.#password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
    const database = parsed.pathname.replace(/^\//, "");
    if (!/^\d{0,5}$/.test(database)) {
      throw new Error(`REDIS_URL names a database that is not a number: ${database}`);
    }
    this.#database = Number(database || 0);
  }

  /** Sends one command and resolves with its reply. */
  async command(args: (string | number)[]): Promise<RespValue> {
    await this.#connection();
    const reply = new Promise<RespValue>((resolve, reject) => {
      this.#pending.push({ resolve, reject, sentAt: Date.now() });
    });
    this.#outbox.push(encodeCommand(args));
    if (!this.#flushing) {
      this.#flushing = true;
      setImmediate(() => this.#flush());
    }
    this.#watchdog ??= setTimeout(() => this.#checkTimeouts(), this.timeoutMs);
    return await reply;
  }

  async #flush(): Promise<void> {
    const conn = this.#conn;
    const bytes = concatAll(this.#outbox.splice(0));
    if (conn === null || bytes.length === 0) {
      this.#flushing = false; // a failed connection already rejected what was queued
      return;
    }
    try {
      for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
    } catch (e) {
      if (this.#conn === conn) this.#fail(e instanceof Error ? e : new Error(String(e)));
    } finally {
      this.#flushing = false;
      if (this.#outbox.length > 0) {
        this.#flushing = true;
        setImmediate(() => this.#flush());
      }
    }
  }

  /** One timer for all commands: fails the connection when the oldest waits too long. */
  #checkTimeouts(): void {
    this.#watchdog = null;
    const oldest = this.#pending[0];
    if (!oldest) return;
    const waited = Date.now() - oldest.sentAt;
    if (waited >= this.timeoutMs) {
      this.#fail(new Error("Redis command timed out"));
      return;
    }
    this.#watchdog = setTimeout(() => this.#checkTimeouts(), this.timeoutMs - waited);
  }

  /** Runs a Lua script by hash; rejects with NOSCRIPT when this server has not seen it. */
  async evalsha(hash: string, keys: string[], args: unknown[]): Promise<unknown> {
    const local = this.#localHashes.get(hash);
    if (!local) throw new RedisReplyError("NOSCRIPT No matching script");
    return await this.command(["EVALSHA", local, keys.length, ...keys, ...args.map(String)]);
  }

  /** Runs a Lua script, remembering its hash for later `evalsha` calls. */
  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    // A script may ask Upstash for its keys' locks only (a shebang flag, `shared_window.ts`);
    // open-source Redis 7 refuses that flag, and the body is plain Lua without that first line.
    const body = script.startsWith("#!") ? script.slice(script.indexOf("\n") + 1) : script;
    const local = await this.command(["SCRIPT", "LOAD", body]);
    if (typeof local !== "string") throw new RedisReplyError("SCRIPT LOAD returned no hash");
    this.#localHashes.set(createHash("sha1").update(script).digest("hex"), local);
    return await this.command(["EVALSHA", local, keys.length, ...keys, ...args.map(String)]);
  }

  /** Reads a key. */
  async get(key: string): Promise<RespValue> {
    return await this.command(["GET", key]);
  }

  /** Writes a key. */
  async set(key: string, value: string): Promise<RespValue> {
    return await this.command(["SET", key, value]);
  }

  /** Closes the connection; the next command reopens it. */
  close(): void {
    this.#fail(new Error("Redis connection closed"));
  }

  async #connection(): Promise<Deno.TcpConn> {
    if (this.#conn) return this.#conn;
    this.#connecting ??= this.#open().finally(() => (this.#connecting = null));
    return await this.#connecting;
  }

  async #open(): Promise<Deno.TcpConn> {
    const attempt = Deno.connect({ hostname: this.#hostname, port: this.#port });
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("Redis connect timed out")), this.timeoutMs)
    );
    const conn = await Promise.race([attempt, timeout]);
    conn.setNoDelay(true);
    this.#conn = conn;
    this.#buffer = new Uint8Array(0);
    this.#readLoop(conn);
    if (this.#password) await this.command(["AUTH", this.#password]);
    if (this.#database !== 0) await this.command(["SELECT", this.#database]);
    return conn;
  }

  async #readLoop(conn: Deno.TcpConn): Promise<void> {
    const chunk = new Uint8Array(16 * 1024);
    try {
      while (true) {
        const n = await conn.read(chunk);
        if (n === null) throw new Error("Redis closed the connection");
        this.#buffer = concatAll([this.#buffer, chunk.subarray(0, n)]);
        this.#drainReplies();
      }
    } catch (e) {
      if (this.#conn === conn) this.#fail(e instanceof Error ? e : new Error(String(e)));
    }
  }

  #drainReplies(): void {
    while (this.#pending.length > 0) {
      const parsed = parseReply(this.#buffer, 0);
      if (!parsed) return;
      this.#buffer = this.#buffer.subarray(parsed.end);
      const waiter = this.#pending.shift();
      if (parsed.value instanceof RedisReplyError) waiter?.reject(parsed.value);
      else waiter?.resolve(parsed.value);
    }
  }

  #fail(error: Error): void {
    const conn = this.#conn;
    this.#conn = null;
    try {
      conn?.close();
    } catch {
      // already closed
    }
    this.#outbox = [];
    if (this.#watchdog !== null) clearTimeout(this.#watchdog);
    this.#watchdog = null;
    for (const waiter of this.#pending.splice(0)) waiter.reject(error);
  }
}

function encodeCommand(args: (string | number)[]): Uint8Array {
  let out = `*${args.length}\r\n`;
  for (const arg of args) {
    const s = String(arg);
    out += `$${encoder.encode(s).byteLength}\r\n${s}\r\n`;
  }
  return encoder.encode(out);
}

type Parsed = { value: RespValue | RedisReplyError; end: number };

function parseReply(buf: Uint8Array, start: number): Parsed | null {
  const lineEnd = findCrlf(buf, start);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(buf[start] ?? 0);
  const line = decoder.decode(buf.subarray(start + 1, lineEnd));
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, end: next };
    case "-":
      return { value: new RedisReplyError(line), end: next };
    case ":":
      return { value: Number(line), end: next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buf.length < next + length + 2) return null;
      return { value: decoder.decode(buf.subarray(next, next + length)), end: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, at);
        if (!item) return null;
        items.push(item.value instanceof RedisReplyError ? null : item.value);
        at = item.end;
      }
      return { value: items, end: at };
    }
    default:
      throw new Error(`Unexpected Redis reply type: ${type}`);
  }
}

function findCrlf(buf: Uint8Array, from: number): number {
  for (let i = from; i < buf.length - 1; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10) return i;
  }
  return -1;
}

/** The parts as one array; a single part is returned as it is, anything else is copied. */
function concatAll(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
