import { createHash } from "node:crypto";
import type { WindowResult } from "./types.ts";

/** What the shared store's clients have in common: @upstash/redis over HTTPS, RedisTcp. */
export interface ScriptRunner {
  evalsha(hash: string, keys: string[], args: unknown[]): Promise<unknown>;
  eval(script: string, keys: string[], args: unknown[]): Promise<unknown>;
}

/** A window's answer to a count of several requests at once. */
export interface Granted extends WindowResult {
  /** Requests counted: as many as asked, or what the window had left; 0 when refused. */
  granted: number;
}

/**
 * The sliding window's arithmetic (`memory_window.ts` has the same): the previous fixed window's
 * count, weighted by how much of it still overlaps, plus the current one's. A rate grants what the
 * window has left, at most the rate, and counts only that; a negative rate gives back, never below
 * what the current window counted. Answers {granted, remaining}. The flag lets Upstash lock only
 * the script's keys; without it a script holds the whole database while it runs.
 */
const SCRIPT = `#!lua flags=allow-key-locking
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local rate = tonumber(ARGV[4])
local current = math.max(0, tonumber(redis.call("GET", KEYS[1]) or "0"))
local previous = math.max(0, tonumber(redis.call("GET", KEYS[2]) or "0"))
local used = math.floor((1 - (now % window) / window) * previous) + current
if rate < 0 then
  local back = math.min(-rate, current)
  if back > 0 then redis.call("DECRBY", KEYS[1], back) end
  return {0, limit - used + back}
end
local granted = math.min(rate, limit - used)
if granted < 1 then return {0, math.max(0, limit - used)} end
if redis.call("INCRBY", KEYS[1], granted) == granted then
  redis.call("PEXPIRE", KEYS[1], window * 2 + 1000)
end
return {granted, limit - used - granted}
`;

const SCRIPT_HASH = createHash("sha1").update(SCRIPT).digest("hex");

/**
 * A sliding window of `limit` requests per `windowMs` in the shared store, one per bucket kind.
 * Its keys are `<prefix>:<identifier>:<fixed window>`, as @upstash/ratelimit's sliding window
 * names them, so counts carry over from the code that used it.
 */
export class SharedWindow {
  constructor(
    readonly store: ScriptRunner,
    readonly prefix: string,
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts up to `rate` requests of `identifier` (a negative rate gives them back). */
  async count(identifier: string, rate: number): Promise<Granted> {
    const now = Date.now();
    const window = Math.floor(now / this.windowMs);
    const keys = [
      `${this.prefix}:${identifier}:${window}`,
      `${this.prefix}:${identifier}:${window - 1}`,
    ];
    const args = [this.limit, now, this.windowMs, rate];
    let answer: unknown;
    try {
      answer = await this.store.evalsha(SCRIPT_HASH, keys, args);
    } catch (e) {
      if (!String(e).includes("NOSCRIPT")) throw e;
      answer = await this.store.eval(SCRIPT, keys, args);
    }
    if (!Array.isArray(answer) || answer.length !== 2) {
      throw new Error(`The rate-limit store answered ${JSON.stringify(answer)?.slice(0, 100)}`);
    }
    const [granted, remaining] = answer.map(Number) as [number, number];
    return {
      success: granted >= 1,
      granted,
      limit: this.limit,
      remaining: Math.max(0, remaining),
      reset: (window + 1) * this.windowMs,
    };
  }
}
