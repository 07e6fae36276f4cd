import { deepEqual, equal, ok } from "node:assert/strict";
import { LeasedWindow, type TakeFromStore } from "./leased_window.ts";
import type { WindowResult } from "./types.ts";

/** A store with one fixed budget per identifier that counts its calls. */
function store(budget: number): { take: TakeFromStore; calls: () => number } {
  const spent = new Map<string, number>();
  let calls = 0;
  const reset = Date.now() + 60_000;
  const take: TakeFromStore = (identifier, rate) => {
    calls++;
    const used = spent.get(identifier) ?? 0;
    const success = used + rate <= budget;
    if (success) spent.set(identifier, used + rate);
    const remaining = budget - (spent.get(identifier) ?? 0);
    return Promise.resolve({ success, limit: budget, remaining, reset } satisfies WindowResult);
  };
  return { take, calls: () => calls };
}

Deno.test("leases: one instance allows the budget exactly, asking the store once a lease", async () => {
  const shared = store(240);
  const window = new LeasedWindow(shared.take, 240, 24);
  const results = [];
  for (let i = 0; i < 241; i++) results.push(await window.limit("caller"));
  equal(results.filter((r) => r.success).length, 240);
  equal(results[240]!.success, false);
  deepEqual(results.slice(0, 3).map((r) => r.remaining), [239, 238, 237]);
  ok(shared.calls() <= 240 / 24 + 3, `${shared.calls()} store calls for 241 requests`);
});

Deno.test("leases: instances together never allow more than the budget", async () => {
  const shared = store(30);
  const instances = [1, 2, 3].map(() => new LeasedWindow(shared.take, 30, 3));
  let allowed = 0;
  for (let i = 0; i < 60; i++) {
    if ((await instances[i % 3]!.limit("address")).success) allowed++;
  }
  ok(allowed <= 30, `${allowed} allowed`);
  ok(allowed >= 30 - 3 * 2, `${allowed} allowed: unused leases lose at most a lease each`);
});

Deno.test("leases: a refused caller is refused without asking the store again at once", async () => {
  const shared = store(3);
  const window = new LeasedWindow(shared.take, 3, 1);
  for (let i = 0; i < 3; i++) equal((await window.limit("x")).success, true);
  equal((await window.limit("x")).success, false);
  const calls = shared.calls();
  for (let i = 0; i < 20; i++) equal((await window.limit("x")).success, false);
  equal(shared.calls(), calls, "refusals within a second were answered here");
});

Deno.test("leases: concurrent first requests share one take", async () => {
  const shared = store(100);
  const window = new LeasedWindow(shared.take, 100, 10);
  const results = await Promise.all(Array.from({ length: 5 }, () => window.limit("y")));
  equal(results.filter((r) => r.success).length, 5);
  equal(shared.calls(), 1);
});
