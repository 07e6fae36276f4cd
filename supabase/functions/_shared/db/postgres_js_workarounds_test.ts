/**
 * The workarounds of postgres_js_workarounds.ts: how each behaves, and, for those an upstream fix
 * would make unneeded, a test of the unpatched dependency that shows the defect (it fails once the
 * dependency is fixed: the workaround can then go).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import fc from "fast-check";
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { runtimeDeno, runtimeDenoEnv } from "../../../../scripts/support/deno_runtime.ts";
import {
  channelImmediates,
  delaysImmediates,
  refusedWhenSent,
  sqlLiteral,
  workaroundOptions,
} from "./postgres_js_workarounds.ts";

const LOCAL_URL = "postgres://postgres@127.0.0.1:5432/postgres";
// Installs the process-wide workarounds (the immediate, on a runtime that delays Node's).
const { types } = workaroundOptions(LOCAL_URL);
const { setImmediate, clearImmediate } = channelImmediates;

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

Deno.test("postgres.js flushes its writes through the global setImmediate", async () => {
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

/** The median wait, in ms, of Node's own `setImmediate` on the Deno at `denoPath`, and its version. */
async function nativeImmediateWait(denoPath: string): Promise<{ ms: number; version: string }> {
  const script = `
    import { setImmediate } from "node:timers";
    const waits = [];
    for (let i = 0; i < 41; i++) {
      const start = performance.now();
      await new Promise((resolve) => setImmediate(resolve));
      waits.push(performance.now() - start);
    }
    console.log(waits.sort((a, b) => a - b)[20], Deno.version.deno);`;
  const { stdout } = await new Deno.Command(denoPath, {
    args: ["eval", script],
    env: runtimeDenoEnv(),
    stdout: "piped",
  }).output();
  const [ms = "", version = ""] = new TextDecoder().decode(stdout).trim().split(" ");
  return { ms: Number(ms), version };
}

/** A native wait at least this long is a timer tick, not a turn of the event loop. */
const TIMER_TICK_MS = 0.5;

Deno.test("the runtime's setImmediate waits a timer tick (the platform's Deno 2.1)", async () => {
  const { ms, version } = await nativeImmediateWait(await runtimeDeno());
  ok(ms >= TIMER_TICK_MS, `the runtime's setImmediate waited ${ms} ms: the workaround can go`);
  ok(delaysImmediates(version), `Deno ${version} waits a tick but would not get the workaround`);
});

Deno.test("the edge runtime's version is read as the Deno it is compatible with", () => {
  equal(delaysImmediates("supabase-edge-runtime-1.74.2 (compatible with Deno v2.1.4)"), true);
  equal(delaysImmediates("supabase-edge-runtime-2.0.0 (compatible with Deno v2.6.0)"), false);
  equal(delaysImmediates("2.1.14"), true);
  equal(delaysImmediates("2.9.6"), false);
  equal(delaysImmediates("3.0.0"), false);
  // Unreadable, as the edge runtime's own tests show it: the replacement stays.
  equal(delaysImmediates("supabase-edge-runtime-0.1.0 (compatible with Deno vUNKNOWN)"), true);
});

Deno.test("the tooling's Deno gets the immediate exactly when its setImmediate waits a tick", async () => {
  const { ms, version } = await nativeImmediateWait(Deno.execPath());
  equal(delaysImmediates(version), ms >= TIMER_TICK_MS, `Deno ${version} waited ${ms} ms`);
});

/** An in-memory Postgres served on a local port, for the driver's own behaviour. */
async function servedPglite(): Promise<{ url: string; close: () => Promise<void> }> {
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await server.start();
  const { port } = server as unknown as { port: number };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  const settled = promise.then(() => true, () => true);
  const result = await Promise.race([settled, late]);
  clearTimeout(timer);
  return result;
}

Deno.test({
  name: "reserve() on a cold pool without fetch_types never settles (porsager/postgres#751)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const database = await servedPglite();
    const unpatched = postgres(database.url, { max: 1, fetch_types: false, onnotice: () => {} });
    const patched = postgres(database.url, {
      ...workaroundOptions(database.url),
      max: 1,
      onnotice: () => {},
    });
    try {
      equal(
        await settlesWithin(unpatched.reserve(), 1_500),
        false,
        "postgres.js handed the reservation its connection: repairReading (1) can go",
      );
      const reserving = patched.reserve();
      equal(await settlesWithin(reserving, 1_500), true, "the repaired socket hands it over");
      (await reserving).release();
    } finally {
      await unpatched.end({ timeout: 0 });
      await patched.end({ timeout: 0 });
      await database.close();
    }
  },
});

Deno.test({
  name: "sqlLiteral() is read back by Postgres as exactly the value, whatever it holds",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await PGlite.create();
    try {
      for (const conforming of ["on", "off"]) {
        await db.exec(
          `set standard_conforming_strings = ${conforming}; set escape_string_warning = off`,
        );
        await fc.assert(
          fc.asyncProperty(fc.string({ unit: "binary", maxLength: 40 }), async (text) => {
            if (text.includes("\0")) {
              let code: unknown;
              try {
                sqlLiteral(text);
              } catch (e) {
                code = (e as { code?: unknown }).code;
              }
              equal(code, "22021", "NUL is refused as Postgres refuses it");
              return;
            }
            const { rows } = await db.query<{ v: string }>(`select ${sqlLiteral(text)}::text as v`);
            equal(rows[0]?.v, text);
          }),
          { numRuns: 300 },
        );
        const element = fc.option(fc.string({ unit: "grapheme", maxLength: 12 }), { nil: null });
        await fc.assert(
          fc.asyncProperty(fc.array(element, { maxLength: 6 }), async (items) => {
            const { rows } = await db.query<{ v: string }>(
              `select ${sqlLiteral(items)}::text[]::text as v`,
            );
            deepEqual(types.textArray.parse(rows[0]!.v), items);
          }),
          { numRuns: 200 },
        );
      }
    } finally {
      await db.close();
    }
  },
});

Deno.test({
  name: "a released reservation still sends its queries, into the next holder's transaction",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const database = await servedPglite();
    const sql = postgres(database.url, {
      ...workaroundOptions(database.url),
      max: 1,
      onnotice: () => {},
    });
    try {
      const first = await sql.reserve();
      let released = false;
      const late = first`select current_setting('test.holder', true) as holder`;
      const checked = refusedWhenSent(
        first`select 1`,
        () => released ? new Error("The reservation was released") : null,
      );
      first.release();
      released = true;
      const second = await sql.reserve();
      await second`begin`;
      await second`select set_config('test.holder', 'second', true)`;
      const [row] = await late;
      equal(
        row?.holder,
        "second",
        "postgres.js refused the released reservation's query: refusedWhenSent's release case can go",
      );
      let refused: unknown = null;
      await checked.catch((e) => (refused = e));
      ok(refused instanceof Error, "refusedWhenSent fails the query instead of sending it");
      await second`rollback`;
      second.release();
    } finally {
      await sql.end({ timeout: 0 });
      await database.close();
    }
  },
});

// The real-Postgres run's server (RUN_CLUSTER_FAULTS=1, as CI runs it). The embedded and hosted
// runs also set DATABASE_URL, to a database that may already be closed when this file runs.
const realDatabase = Deno.env.get("RUN_CLUSTER_FAULTS") === "1" &&
    Deno.env.get("TEST_TARGET") !== "hosted" &&
    Deno.env.get("DATABASE_URL")?.startsWith("postgres")
  ? Deno.env.get("DATABASE_URL")!
  : null;

Deno.test({
  name:
    "a reserve() queued while its connection is terminated never settles (porsager/postgres#1195)",
  ignore: realDatabase === null, // a backend to terminate: real Postgres only
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const owner = postgres(realDatabase!, { max: 1, onnotice: () => {} });
    const unpatched = postgres(realDatabase!, { max: 1, onnotice: () => {} });
    try {
      const holding = await unpatched.reserve();
      const [backend] = await holding<{ pid: number }[]>`select pg_backend_pid() as pid`;
      const queued = unpatched.reserve();
      await owner`select pg_terminate_backend(${backend!.pid})`;
      equal(
        await settlesWithin(queued, 2_000),
        false,
        "postgres.js handed the queued reservation a connection: the pool's replacement can go",
      );
    } finally {
      await unpatched.end({ timeout: 0 });
      await owner.end({ timeout: 0 });
    }
  },
});
