import { deepEqual, equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { clearImmediate, installImmediate, setImmediate } from "./immediate.ts";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

// Each test ends with nothing queued: the test sanitizer then fails on a port left open.
Deno.test("immediates run in order with their arguments, after the task's microtasks", async () => {
  const ran: string[] = [];
  setImmediate((a: string, b: number) => ran.push(`first ${a} ${b}`), "x", 1);
  setImmediate(() => ran.push("second"));
  queueMicrotask(() => ran.push("microtask"));
  ran.push("task");
  await turn();
  deepEqual(ran, ["task", "microtask", "first x 1", "second"]);
});

Deno.test("an immediate queued by an immediate waits for the next turn", async () => {
  const ran: string[] = [];
  setImmediate(() => {
    ran.push("outer");
    setImmediate(() => ran.push("inner"));
  });
  setImmediate(() => ran.push("sibling"));
  await turn();
  await turn();
  deepEqual(ran, ["outer", "sibling", "inner"]);
});

Deno.test("clearImmediate cancels, and ignores what it did not make", async () => {
  let ran = false;
  const immediate = setImmediate(() => (ran = true));
  clearImmediate(immediate);
  clearImmediate(null);
  clearImmediate(42);
  await turn();
  equal(ran, false);
});

Deno.test("a throwing immediate is reported and the turn goes on", async () => {
  const reported: unknown[] = [];
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    reported.push(event.error);
  };
  globalThis.addEventListener("error", onError);
  try {
    let after = false;
    setImmediate(() => {
      throw new Error("boom");
    });
    setImmediate(() => (after = true));
    await turn();
    equal(after, true);
    equal((reported[0] as Error).message, "boom");
  } finally {
    globalThis.removeEventListener("error", onError);
  }
});

Deno.test("postgres.js flushes its writes through the installed setImmediate", async () => {
  installImmediate();
  const installed = globalThis.setImmediate;
  let scheduled = 0;
  Object.assign(globalThis, {
    setImmediate: (...args: Parameters<typeof setImmediate>) => {
      scheduled++;
      return setImmediate(...args);
    },
  });
  // A server that reads the start-up message and closes.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received = (async () => {
    const conn = await listener.accept();
    const bytes = new Uint8Array(1024);
    const read = await conn.read(bytes);
    conn.close();
    return read ?? 0;
  })();
  const sql = postgres({
    host: "127.0.0.1",
    port: listener.addr.port,
    max: 1,
    connect_timeout: 2,
    onnotice: () => {},
  });
  const query = sql`select 1`.execute().catch(() => {});
  try {
    ok(await received > 0, "the server read the start-up message");
    ok(scheduled > 0, "postgres.js scheduled its write through the global setImmediate");
  } finally {
    Object.assign(globalThis, { setImmediate: installed });
    await sql.end({ timeout: 0 });
    await query;
    listener.close();
  }
});
