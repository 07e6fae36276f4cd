import { equal } from "node:assert/strict";
import { BoundedMap } from "./bounded_map.ts";

Deno.test("BoundedMap.get() answers a value until its expiry, then nothing", () => {
  let now = 1_000;
  const map = new BoundedMap<string, string>(10, () => now);
  map.set("key", "value", { until: 2_000 });
  equal(map.get("key"), "value");
  now = 2_000;
  equal(map.get("key"), undefined);
  equal(map.size, 0);
  equal(map.weight, 0);
});

Deno.test("BoundedMap.set() past the capacity drops the entry set longest ago", () => {
  const map = new BoundedMap<string, number>(2, () => 0);
  map.set("a", 1, { until: 10 });
  map.set("b", 2, { until: 10 });
  map.set("a", 3, { until: 10 }); // set again: now the newest
  map.set("c", 4, { until: 10 });
  equal(map.size, 2);
  equal(map.get("b"), undefined);
  equal(map.get("a"), 3);
  equal(map.get("c"), 4);
});

Deno.test("BoundedMap never holds more than its capacity in weight, dropping the oldest first", () => {
  const map = new BoundedMap<number, string>(10_000);
  for (let i = 0; i < 1_000; i++) map.set(i, `value ${i}`, { weight: 1_100 });
  equal(map.weight, 9_900);
  equal(map.size, 9);
  equal(map.get(990), undefined);
  equal(map.get(999), "value 999");
  equal(map.get(991), "value 991");
});

Deno.test("BoundedMap keeps no entry heavier than its whole capacity", () => {
  const map = new BoundedMap<string, string>(100);
  map.set("small", "kept", { weight: 60 });
  map.set("huge", "not kept", { weight: 101 });
  equal(map.get("huge"), undefined);
  equal(map.get("small"), "kept");
  equal(map.weight, 60);
});

Deno.test("BoundedMap counts a replaced or deleted entry's weight once", () => {
  const map = new BoundedMap<string, string>(100);
  map.set("a", "1", { weight: 40 });
  map.set("a", "2", { weight: 50 });
  equal(map.weight, 50);
  map.delete("a");
  equal(map.weight, 0);
  equal(map.size, 0);
});
