import { equal, rejects } from "node:assert/strict";
import { Redis } from "ioredis";
import { UPSTASH_ONLY_FLAG, UpstashScripts } from "../scripts/support/redis_script_flags.ts";

const redisUrl = Deno.env.get("REDIS_URL");
const script = `#!lua flags=${UPSTASH_ONLY_FLAG}\nreturn tonumber(ARGV[1]) + 1`;

Deno.test({
  name:
    "UpstashScripts: open-source Redis refuses the library's flag, and runs the script without it",
  ignore: !redisUrl,
  async fn() {
    const redis = new Redis(redisUrl!, { lazyConnect: true });
    try {
      // The defect: while this refusal holds, the workaround is needed.
      await rejects(redis.call("EVAL", script, 0, "1"), /Unexpected flag in script shebang/);
      const scripts = new UpstashScripts();
      equal(await redis.call("EVAL", scripts.forEval(script), 0, "1"), 2);
      const { createHash } = await import("node:crypto");
      const libraryHash = createHash("sha1").update(script).digest("hex");
      equal(await redis.call("EVALSHA", scripts.forEvalsha(libraryHash), 0, "41"), 42);
      await rejects(redis.call("EVALSHA", scripts.forEvalsha("0".repeat(40)), 0), /NOSCRIPT/);
    } finally {
      redis.disconnect();
    }
  },
});

Deno.test("UpstashScripts.forEval() leaves scripts without the flag as they are", () => {
  const scripts = new UpstashScripts();
  equal(scripts.forEval("return 1"), "return 1");
  equal(scripts.forEval("#!lua flags=no-writes\nreturn 1"), "#!lua flags=no-writes\nreturn 1");
  equal(
    scripts.forEval(`#!lua flags=no-writes,${UPSTASH_ONLY_FLAG}\nreturn 1`),
    "#!lua flags=no-writes\nreturn 1",
  );
});
