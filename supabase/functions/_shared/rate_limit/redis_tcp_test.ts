import { equal, rejects } from "node:assert/strict";
import { RedisTcp } from "./redis_tcp.ts";

const redisUrl = Deno.env.get("REDIS_URL");
const opts = { ignore: !redisUrl, sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "RedisTcp rejects promptly when nothing listens",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const redis = new RedisTcp("redis://127.0.0.1:1", 500);
    await rejects(redis.command(["PING"]));
    redis.close();
  },
});

Deno.test({
  name: "RedisTcp writes to the database REDIS_URL names, not database 0",
  ...opts,
  fn: async () => {
    const base = new URL(redisUrl!);
    base.pathname = "/9";
    const inNine = new RedisTcp(base.href);
    base.pathname = "/0";
    const inZero = new RedisTcp(base.href);
    const key = `test-db-${crypto.randomUUID()}`;
    try {
      await inNine.command(["SET", key, "1", "EX", "60"]);
      equal(await inNine.command(["GET", key]), "1");
      equal(await inZero.command(["GET", key]), null);
    } finally {
      await inNine.command(["DEL", key]);
      inNine.close();
      inZero.close();
    }
  },
});
