/**
 * A request's rate-limit verdict: the request counted once in every bucket of its credential, and
 * the answer awaited where a response depends on it.
 *
 * Where the count is kept: in Upstash through @upstash/ratelimit when it is configured and
 * answers; otherwise in the database (`database_window.ts`), which every instance shares and every
 * request reaches anyway. There the count is an autocommitted statement of its own, sent on the
 * request's connection ahead of its transaction in the same write (`sendAhead`), so it costs no
 * round trip and counts whatever becomes of the transaction; a write's transaction then asks
 * whether it was refused (`assertWithinBudget`) rather than wait for its answer. Endpoints that say `in_process` count
 * in this instance alone.
 */
import type { RateLimitStore } from "@shared/contract/entry.ts";
import { noteAddressWindow } from "../auth/api_key_standing.ts";
import type { Bucket } from "../auth/credential.ts";
import { type SendAhead, sendAlone } from "../db/transaction.ts";
import { env } from "../env.ts";
import { BoundedMap } from "../bounded_map.ts";
import { errorMessage } from "../error_message.ts";
import { log } from "../log.ts";
import { refusals } from "../refusals.ts";
import { sha256Hex } from "../sha256.ts";
import {
  bucketLimits,
  mapKinds,
  rateLimitHeaders,
  WINDOW_MS,
  type WindowResult,
} from "./buckets.ts";
import { countInDatabase } from "./database_window.ts";
import { MemoryWindow } from "./memory_window.ts";
import { UpstashWindows } from "./upstash_window.ts";

/** After Upstash fails, how long the database counts alone before Upstash is asked again. */
const STORE_RETRY_MS = 5_000;
/**
 * After Upstash fails, how long the database also counts what Upstash admits: its windows hold what
 * this instance admitted meanwhile, which Upstash never saw.
 */
const RECOUNT_MS = STORE_RETRY_MS + 2 * WINDOW_MS;

const upstash = env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
  ? new UpstashWindows(
    env.UPSTASH_REDIS_REST_URL,
    env.UPSTASH_REDIS_REST_TOKEN,
    env.RATE_LIMIT_PREFIX,
  )
  : null;
let upstashDownUntil = 0;
let recountUntil = 0;
const inProcess = mapKinds((kind) => new MemoryWindow(bucketLimits[kind], WINDOW_MS));

function upstashAnswers(): boolean {
  return upstash !== null && Date.now() >= upstashDownUntil;
}

/**
 * A connection about to carry a transaction, and the request whose refusal the database keeps for
 * the transaction to find.
 */
interface Ahead {
  send: SendAhead;
  requestId: string | null;
}

/**
 * Counts one request in the shared store: Upstash while it answers, else the database, ahead of a
 * transaction when one is about to open (the statement is sent before this returns).
 */
async function countShared(
  kind: Bucket["kind"],
  hashed: string,
  on: Ahead | null,
): Promise<WindowResult> {
  const key = `${env.RATE_LIMIT_PREFIX}:${kind}:${hashed}`;
  // Once a count was left to travel ahead, it is the database's, whatever Upstash says meanwhile:
  // a write's transaction asks the database for its verdict (`assertWithinBudget`).
  if (on !== null) {
    return await countInDatabase(on.send, kind, key, on.requestId);
  }
  if (upstash && upstashAnswers()) {
    const window = await upstash.limit(kind, hashed).catch((e: unknown) => {
      if (upstashDownUntil === 0) {
        log.warn("rate_limit_store_unreachable", {
          reason: errorMessage(e),
        });
      }
      upstashDownUntil = Date.now() + STORE_RETRY_MS;
      recountUntil = Date.now() + RECOUNT_MS;
      return null;
    });
    if (window) {
      if (upstashDownUntil !== 0) {
        upstashDownUntil = 0;
        log.warn("rate_limit_store_recovered", {});
      }
      if (!window.success || Date.now() >= recountUntil) return window;
      // Upstash came back without what the database admitted meanwhile: either may refuse.
      const counted = await countInDatabase(sendAlone, kind, key);
      return counted.success
        ? { ...window, remaining: Math.min(window.remaining, counted.remaining) }
        : counted;
    }
  }
  return await countInDatabase(sendAlone, kind, key);
}

/**
 * How long a refused bucket's next requests wait for their verdict before any database work: a
 * caller over budget costs at most one transaction per second per instance, not one per request.
 */
const REFUSAL_MEMORY_MS = 1_000;
const refusedLately = new BoundedMap<string, true>(10_000);

function remembered(bucket: Bucket): string {
  return sha256Hex(`${bucket.kind}:${bucket.identifier}`);
}

function rememberRefusal(bucket: Bucket): void {
  refusedLately.set(remembered(bucket), true, { until: Date.now() + REFUSAL_MEMORY_MS });
}

/**
 * Counts one request in a bucket (the identifier hashed, so no token reaches a store); what an
 * address's window says is noted for API-key lookups.
 */
export async function countRequest(
  bucket: Bucket,
  store: RateLimitStore = "shared",
  on: Ahead | null = null,
): Promise<WindowResult> {
  const hashed = sha256Hex(bucket.identifier);
  const window = store === "in_process"
    ? await inProcess[bucket.kind].limit(hashed)
    : await countShared(bucket.kind, hashed, on);
  if (bucket.kind === "ip") noteAddressWindow(bucket.identifier, window);
  if (!window.success) rememberRefusal(bucket);
  return window;
}

/** A request's verdict (see the module's summary). */
export class Verdict {
  /** Whether one of the buckets was refused within the last second (in this instance). */
  readonly refusedRecently: boolean;
  readonly #buckets: readonly Bucket[];
  #headers: Promise<Record<string, string>> | null = null;
  #keptFor: string | null = null;

  constructor(
    buckets: readonly Bucket[],
    readonly requestId: string,
    readonly store: RateLimitStore = "shared",
  ) {
    this.#buckets = buckets;
    // Hashing is skipped on the usual path, where no bucket has been refused lately.
    this.refusedRecently = refusedLately.size > 0 &&
      buckets.some((b) => refusedLately.get(remembered(b)) === true);
    // The database is asked with the request's first statement instead (`sendAhead`).
    if (store === "in_process" || upstashAnswers()) this.#count(null);
  }

  /** Whether the count waits to travel ahead of the request's transaction (`sendAhead`). */
  get ridesAhead(): boolean {
    return this.#headers === null;
  }

  /**
   * Sends the count through `send`, ahead of the transaction about to open on its connection,
   * unless it went to a store already.
   */
  sendAhead(send: SendAhead): void {
    if (this.#headers === null) this.#count({ send, requestId: this.#keptFor });
  }

  /**
   * For a write: whether its count rides ahead of its transaction and keeps its verdict by request
   * id, so that the transaction's first statement refuses it unless the count admitted it
   * (`assertWithinBudget`). When not, the verdict is known otherwise, and the write awaits it
   * before its statements.
   */
  keepsVerdictForWrite(): boolean {
    if (!this.ridesAhead) return false;
    this.#keptFor = this.requestId;
    return true;
  }

  /** The budget's headers when the request is within it; its 429 refusal otherwise. */
  headers(): Promise<Record<string, string>> {
    return this.#headers ?? this.#count(null);
  }

  #count(on: Ahead | null): Promise<Record<string, string>> {
    const windows = Promise.all(
      this.#buckets.map((b) => countRequest(b, this.store, on)),
    );
    const headers = windows.then((all) => {
      const reported = bindingWindow(all);
      const headers = rateLimitHeaders(reported);
      if (!reported.success) throw refusals.rateLimited(headers);
      return headers;
    });
    headers.catch(() => {});
    this.#headers = headers;
    return headers;
  }
}

/**
 * The window that decides and is reported: a refusing one, the one refusing longest; else the one
 * with the least room left, so that the headers never promise what another bucket will refuse.
 */
function bindingWindow(windows: readonly WindowResult[]): WindowResult {
  if (windows.length === 0) throw new Error("A credential always counts against a bucket");
  const refused = windows.filter((w) => !w.success);
  return refused.length > 0
    ? refused.reduce((a, b) => b.reset > a.reset ? b : a)
    : windows.reduce((a, b) => b.remaining < a.remaining ? b : a);
}
