import { deepStrictEqual, equal } from "node:assert/strict";
import { MemoryWindow } from "./memory_window.ts";

const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);

Deno.test("MemoryWindow.limit() allows the limit within one window, then refuses", async () => {
  const window = new MemoryWindow(3, 60_000);
  const results = [];
  for (let i = 0; i < 4; i++) results.push(await window.limit("k", t0 + i));
  deepStrictEqual(results.map((r) => r.success), [true, true, true, false]);
  deepStrictEqual(results.map((r) => r.remaining), [2, 1, 0, 0]);
  equal(results[3]?.reset, t0 + 60_000);
});

Deno.test("MemoryWindow.limit() weighs the previous window by its remaining overlap", async () => {
  const window = new MemoryWindow(10, 60_000);
  for (let i = 0; i < 10; i++) await window.limit("k", t0 + i);
  // Halfway through the next window, half of the previous 10 still count: 5 more fit.
  let allowed = 0;
  for (let i = 0; i < 10; i++) if ((await window.limit("k", t0 + 90_000)).success) allowed++;
  equal(allowed, 5);
});

Deno.test("MemoryWindow.limit() keeps identifiers apart", async () => {
  const window = new MemoryWindow(1, 60_000);
  equal((await window.limit("a", t0)).success, true);
  equal((await window.limit("b", t0)).success, true);
  equal((await window.limit("a", t0)).success, false);
});
