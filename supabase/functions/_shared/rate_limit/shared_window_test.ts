import { deepEqual, equal, ok } from "node:assert/strict";
import { RedisTcp } from "./redis_tcp.ts";
import { SharedWindow } from "./shared_window.ts";

const redisUrl = Deno.env.get("REDIS_URL");

Deno.test({
  name:
    "the shared window on a real Redis: counts what it grants, grants what is left, gives back no more than it counted",
  ignore: !redisUrl,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const redis = new RedisTcp(redisUrl!);
    const prefix = `test-${crypto.randomUUID()}`;
    const window = new SharedWindow(redis, prefix, 10, 60_000);
    try {
      const first = await window.count("caller", 1); // the script is not loaded yet: EVAL
      deepEqual([first.success, first.granted, first.remaining, first.limit], [true, 1, 9, 10]);
      ok(first.reset > Date.now());
      const lease = await window.count("caller", 8);
      deepEqual([lease.granted, lease.remaining], [8, 1]);
      const partial = await window.count("caller", 4);
      deepEqual([partial.success, partial.granted, partial.remaining], [true, 1, 0]);
      const refused = await window.count("caller", 4);
      deepEqual([refused.success, refused.granted, refused.remaining], [false, 0, 0]);
      const keys = await redis.command(["KEYS", `${prefix}:*`]) as string[];
      equal(keys.length, 1);
      equal(await redis.command(["GET", keys[0]!]), "10", "a refusal counts nothing");
      ok(Number(await redis.command(["PTTL", keys[0]!])) > 60_000, "kept past the next window");

      const back = await window.count("caller", -3);
      deepEqual([back.granted, back.remaining], [0, 3]);
      await window.count("caller", -50);
      equal(await redis.command(["GET", keys[0]!]), "0", "given back down to nothing, not below");
      equal((await window.count("other", 10)).granted, 10, "identifiers count apart");
    } finally {
      const keys = await redis.command(["KEYS", `${prefix}:*`]) as string[];
      if (keys.length > 0) await redis.command(["DEL", ...keys]);
      redis.close();
    }
  },
});
