import { equal } from "node:assert/strict";
import { ExpiringMap } from "./expiring_map.ts";

Deno.test("ExpiringMap.get() answers a value until its expiry, then nothing", () => {
  let now = 1_000;
  const map = new ExpiringMap<string, string>(10, () => now);
  map.set("key", "value", 2_000);
  equal(map.get("key"), "value");
  now = 2_000;
  equal(map.get("key"), undefined);
  equal(map.size, 0);
});

Deno.test("ExpiringMap.set() past the capacity drops the entry set longest ago", () => {
  const map = new ExpiringMap<string, number>(2, () => 0);
  map.set("a", 1, 10);
  map.set("b", 2, 10);
  map.set("a", 3, 10); // set again: now the newest
  map.set("c", 4, 10);
  equal(map.size, 2);
  equal(map.get("b"), undefined);
  equal(map.get("a"), 3);
  equal(map.get("c"), 4);
});
