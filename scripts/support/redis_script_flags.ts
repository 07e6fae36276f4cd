/**
 * Workaround, for the Upstash stand-in only: @upstash/ratelimit 2.x opens every script with
 * `#!lua flags=allow-key-locking`, a flag Upstash reads (the script locks only its keys) and
 * open-source Redis refuses: Redis 7.0 answers `ERR Unexpected flag in script shebang:
 * allow-key-locking` (it knows no-writes, allow-oom, allow-stale, no-cluster and
 * allow-cross-slot-keys only). The stand-in runs such scripts on open-source Redis without that
 * flag, and answers EVALSHA for the hash the library computed from the script with it.
 * `redis_script_flags_test.ts` shows the refusal; delete this module once the stand-in fronts a
 * server that accepts the flag (that test then fails).
 */
import { createHash } from "node:crypto";

/** The flag Upstash reads and open-source Redis refuses. */
export const UPSTASH_ONLY_FLAG = "allow-key-locking";

const SHEBANG = /^#!lua flags=([^\n]*)\n/;

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/** Scripts as open-source Redis takes them, and the hashes the library knows them by. */
export class UpstashScripts {
  /** The library's hash of a script, to the hash Redis knows the script by without the flag. */
  readonly #hashes = new Map<string, string>();

  /** The script without the flag; its hash is remembered for EVALSHA. */
  forEval(script: string): string {
    const flags = SHEBANG.exec(script)?.[1]?.split(",").map((f) => f.trim());
    if (!flags?.includes(UPSTASH_ONLY_FLAG)) return script;
    const rest = flags.filter((f) => f !== UPSTASH_ONLY_FLAG);
    const body = script.replace(SHEBANG, "");
    const runnable = rest.length > 0 ? `#!lua flags=${rest.join(",")}\n${body}` : body;
    this.#hashes.set(sha1(script), sha1(runnable));
    return runnable;
  }

  /** The hash to ask Redis for (unknown hashes are asked as they are: Redis answers NOSCRIPT). */
  forEvalsha(hash: string): string {
    return this.#hashes.get(hash.toLowerCase()) ?? hash;
  }
}
