/**
 * The workarounds of postgres_js_workarounds.ts: how each behaves, and a test of the unpatched
 * dependency that shows what each works around (it fails once the dependency changes: the
 * workaround can then go).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import fc from "fast-check";
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { RoundTripProxy } from "../../../../scripts/support/round_trip_proxy.ts";
import {
  dropConnectionOf,
  refusedWhenSent,
  sqlLiteral,
  withLiteralValues,
} from "./postgres_js_workarounds.ts";

/** An in-memory Postgres served on a local port, for the driver's own behaviour. */
async function servedPglite(): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await server.start();
  const { port } = server as unknown as { port: number };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/** Runs `fn` with a one-connection pool on a served in-memory Postgres, then ends both. */
async function withServedPool(fn: (sql: postgres.Sql) => Promise<void>): Promise<void> {
  const database = await servedPglite();
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    await fn(sql);
  } finally {
    await sql.end({ timeout: 0 });
    await database.close();
  }
}

/** The round trips of BEGIN, two statements with parameters and COMMIT, sent together. */
async function roundTripsOfATransaction(reserved: postgres.ReservedSql): Promise<number> {
  const sent = [
    reserved.unsafe("begin").execute(),
    reserved`select ${"one"}::text as a`.execute(),
    reserved`select ${2}::int as b`.execute(),
    reserved.unsafe("commit").execute(),
  ];
  await Promise.all(sent);
  return sent.length;
}

Deno.test({
  name: "an unnamed statement with parameters waits for its description before the next is sent",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const database = await servedPglite();
    const proxy = RoundTripProxy.start({ hostname: "127.0.0.1", port: database.port });
    const sql = postgres(`postgres://postgres@127.0.0.1:${proxy.port}/postgres`, {
      max: 1,
      prepare: false,
      onnotice: () => {},
    });
    try {
      await sql`select 1`; // connected, and the types fetched
      const reserved = await sql.reserve();
      proxy.take();
      await roundTripsOfATransaction(reserved);
      const unpatched = proxy.take().roundTrips;
      ok(unpatched > 1, `postgres.js sent it in ${unpatched} round trip: literal values can go`);
      await roundTripsOfATransaction(withLiteralValues(reserved, false));
      equal(proxy.take().roundTrips, 1, "with literal values it is one round trip");
      reserved.release();
    } finally {
      await sql.end({ timeout: 0 });
      proxy.close();
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
              `select to_json(${sqlLiteral(items)}::text[])::text as v`,
            );
            deepEqual(JSON.parse(rows[0]!.v), items);
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
  name: "a query made in time but sent after its transaction was sealed is refused, not sent",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withServedPool(async (sql) => {
      const reserved = await sql.reserve();
      let sealed = false;
      await reserved`begin`;
      const made = reserved`select set_config('test.late', 'sent', false)`;
      const checked = refusedWhenSent(
        reserved`select set_config('test.checked', 'sent', false)`,
        () => sealed ? new Error("The transaction's COMMIT was sent") : null,
      );
      sealed = true;
      await reserved`commit`;
      // Awaited only now, postgres.js sends it now: after the COMMIT, outside the transaction.
      await made;
      let refused: unknown = null;
      await checked.catch((e) => (refused = e));
      ok(refused instanceof Error, "refusedWhenSent fails the query instead of sending it");
      const [row] = await reserved`
        select current_setting('test.late', true) as late,
          current_setting('test.checked', true) as checked`;
      equal(row?.late, "sent", "postgres.js sends a query when awaited: refusedWhenSent must stay");
      ok(row?.checked !== "sent", "the refused query never ran");
      reserved.release();
    }),
});

Deno.test({
  name: "a released reservation refuses its queries instead of sending them to the next holder",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withServedPool(async (sql) => {
      const first = await sql.reserve();
      const late = first`select current_setting('test.holder', true) as holder`;
      first.release();
      const second = await sql.reserve();
      await second`begin`;
      await second`select set_config('test.holder', 'second', true)`;
      let refused: unknown = null;
      await late.catch((e) => (refused = e));
      ok(refused instanceof Error, "the released reservation's query was refused");
      await second`rollback`;
      second.release();
    }),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether the connection of a reservation whose server stops answering mid-statement closes once
 * the reservation is released, past postgres.js's own timeouts; `drop` runs before the release.
 */
async function closesWhenFrozen(drop: (begun: unknown) => void): Promise<boolean> {
  const database = await servedPglite();
  const proxy = RoundTripProxy.start({ hostname: "127.0.0.1", port: database.port });
  let closed = false;
  const sql = postgres(`postgres://postgres@127.0.0.1:${proxy.port}/postgres`, {
    max: 1,
    fetch_types: false,
    query_timeout: 0.3,
    cancel_timeout: 0.3,
    onnotice: () => {},
    onclose: () => (closed = true),
  });
  try {
    const reserved = await sql.reserve();
    const begun = reserved.unsafe("begin").execute();
    await begun;
    proxy.holdAfter(0); // the server hears nothing more: frozen, its socket open
    reserved`select ${"waits for its description"}::text as a`.execute().catch(() => {});
    await pause(1_000);
    drop(begun);
    reserved.release();
    await pause(1_000);
    return closed;
  } finally {
    proxy.release();
    await sql.end({ timeout: 0 });
    proxy.close();
    await database.close();
  }
}

Deno.test({
  name: "a released reservation whose server froze keeps its connection, unless it is dropped",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    equal(
      await closesWhenFrozen(() => {}),
      false,
      "postgres.js closed the frozen connection itself: dropConnectionOf can go",
    );
    equal(await closesWhenFrozen(dropConnectionOf), true, "dropConnectionOf closes it at once");
  },
});
