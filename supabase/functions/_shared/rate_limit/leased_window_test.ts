import { deepEqual, equal, ok } from "node:assert/strict";
import { type CountingWindow, LEASE_MS, LeasedWindow } from "./leased_window.ts";
import type { Granted } from "./shared_window.ts";

/** The shared window as its script counts (`shared_window.ts`), in one fixed window. */
class FakeStore implements CountingWindow {
  used = 0;
  leases: number[] = [];
  delayMs = 0;
  failures = 0;
  constructor(readonly budget: number) {}

  async count(_identifier: string, rate: number): Promise<Granted> {
    if (rate > 0) this.leases.push(rate);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (rate > 0 && this.failures > 0) {
      this.failures--;
      throw new Error("the store timed out");
    }
    const granted = rate < 0 ? 0 : Math.min(rate, this.budget - this.used);
    this.used = Math.max(0, this.used + (rate < 0 ? rate : granted));
    return {
      success: granted >= 1,
      granted,
      limit: this.budget,
      remaining: this.budget - this.used,
      reset: 60_000,
    };
  }
}

Deno.test("one instance spends exactly the budget, asks the store for a few of it at a time, and reports one request less each time", async () => {
  const store = new FakeStore(240);
  const window = new LeasedWindow(store, 8, () => 0);
  const remaining: number[] = [];
  for (let i = 0; i < 240; i++) {
    const result = await window.limit("caller");
    ok(result.success);
    remaining.push(result.remaining);
  }
  deepEqual(remaining, Array.from({ length: 240 }, (_, i) => 239 - i));
  deepEqual(store.leases.slice(0, 5), [1, 2, 4, 8, 8]);
  ok(store.leases.length < 60, `${store.leases.length} store calls for 240 requests`);
  deepEqual(store.leases.slice(-5), Array(5).fill(1), "one at a time near the end");
  equal((await window.limit("caller")).success, false);
  equal(store.used, 240, "nothing counted past the budget is kept");
});

Deno.test("instances sharing the store spend no more than the budget between them", async () => {
  const store = new FakeStore(100);
  const clock = () => 0;
  const instances = [0, 1, 2].map(() => new LeasedWindow(store, 8, clock));
  let spent = 0;
  // An uneven interleaving: the instances' leases overshoot the window near its end.
  for (let i = 0; i < 400; i++) {
    const instance = instances[(i * 7 + (i >> 3)) % 3]!;
    if ((await instance.limit("caller")).success) spent++;
  }
  // Near the end the store grants what it has left: every request of the budget is spent.
  equal(spent, 100);
  equal(store.used, 100);
});

Deno.test("what an expired lease left goes back once, though the next lease fails", async () => {
  const store = new FakeStore(240);
  let now = 0;
  const window = new LeasedWindow(store, 8, () => now);
  for (let i = 0; i < 4; i++) await window.limit("caller"); // leases of 1, 2 and 4: 3 unspent
  equal(store.used, 7);
  now += LEASE_MS;
  store.failures = 3;
  for (let i = 0; i < 3; i++) await window.limit("caller").catch(() => {});
  equal(store.used, 4, "given back once");
  ok((await window.limit("caller")).success);
  equal(store.used, 5);
});

Deno.test("concurrent requests of a bucket wait for the lease being asked for", async () => {
  const store = new FakeStore(240);
  store.delayMs = 5;
  const window = new LeasedWindow(store, 8, () => 0);
  const results = await Promise.all(Array.from({ length: 15 }, () => window.limit("caller")));
  ok(results.every((r) => r.success));
  deepEqual(store.leases, [1, 2, 4, 8]);
  deepEqual(
    results.map((r) => r.remaining).sort((a, b) => b - a),
    Array.from({ length: 15 }, (_, i) => 239 - i),
  );
});

Deno.test("a refused lease refuses every request that waited for it", async () => {
  const store = new FakeStore(1);
  store.delayMs = 5;
  const window = new LeasedWindow(store, 8, () => 0);
  const results = await Promise.all(Array.from({ length: 5 }, () => window.limit("caller")));
  equal(results.filter((r) => r.success).length, 1);
  deepEqual(store.leases, [1, 1], "one lease granted, one refused, for five requests");
});

Deno.test("a lease is not spent after it expires: what it left goes back, and the next is half", async () => {
  const store = new FakeStore(240);
  let now = 0;
  const window = new LeasedWindow(store, 8, () => now);
  for (let i = 0; i < 4; i++) await window.limit("caller"); // leases of 1, 2 and then 4
  deepEqual(store.leases, [1, 2, 4]);
  now += LEASE_MS;
  const late = await window.limit("caller");
  ok(late.success);
  deepEqual(store.leases, [1, 2, 4, 2], "three requests of the last lease expired unspent");
  equal(store.used, 7 - 3 + 2, "the three went back before the next lease");
  equal(late.remaining, 240 - 5, "one request less than before, as if nothing had been leased");
  // Left unspent in a window that has since ended, it stays where it was counted.
  now = 60_000 + LEASE_MS;
  equal((await window.limit("caller")).remaining, 240 - 7);
  equal(store.used, 7);
});

Deno.test("buckets lease apart", async () => {
  const store = new FakeStore(240);
  const window = new LeasedWindow(store, 8, () => 0);
  await window.limit("one");
  await window.limit("one");
  await window.limit("two");
  deepEqual(store.leases, [1, 2, 1]);
});
