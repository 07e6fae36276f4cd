import { equal } from "node:assert/strict";
import { ByteCappedCache } from "./byte_capped_cache.ts";

Deno.test("ByteCappedCache never holds more than its bytes, dropping the oldest first", () => {
  const cache = new ByteCappedCache<number, string>(10_000);
  for (let i = 0; i < 1_000; i++) cache.set(i, `value ${i}`, 1_100);
  equal(cache.bytes, 9_900);
  equal(cache.size, 9);
  equal(cache.get(990), undefined);
  equal(cache.get(999), "value 999");
  equal(cache.get(991), "value 991");
});

Deno.test("ByteCappedCache keeps no entry larger than the whole cap", () => {
  const cache = new ByteCappedCache<string, string>(100);
  cache.set("small", "kept", 60);
  cache.set("huge", "not kept", 101);
  equal(cache.get("huge"), undefined);
  equal(cache.get("small"), "kept");
  equal(cache.bytes, 60);
});

Deno.test("ByteCappedCache counts a replaced or deleted entry once", () => {
  const cache = new ByteCappedCache<string, string>(100);
  cache.set("a", "1", 40);
  cache.set("a", "2", 50);
  equal(cache.bytes, 50);
  cache.delete("a");
  equal(cache.bytes, 0);
  equal(cache.size, 0);
});
