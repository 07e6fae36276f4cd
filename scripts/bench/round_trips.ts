/**
 * `deno task bench:round-trips`: database round trips and bytes per request kind, counted by a proxy
 * between the server and Postgres (scripts/support/round_trip_proxy.ts), and how many of them the
 * answer waited for (the last held back while the call is made again). The server runs on a fresh
 * database of the real Postgres with one pooled connection, so calls in sequence share it warm;
 * once with prepared statements (the default) and once with `DATABASE_PREPARE=false`, as behind
 * the hosted pooler. The last row is a find by id on a new connection (its start-up included).
 *
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, used only to
 * create and drop the benchmark's own database; the rate limiter counts there too).
 */
import postgres from "postgres";
import { type Account, createAccount, createApiKeys } from "../support/accounts.ts";
import { freshDatabase } from "../support/fresh_database.ts";
import { RoundTripProxy, type RoundTrips } from "../support/round_trip_proxy.ts";
import { ServerProcess } from "../support/server_process.ts";

const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const NETWORK_MS = 2;

interface Kind {
  label: string;
  fn: string;
  body: () => unknown;
  auth: "jwt" | "api_key";
  headers?: () => Record<string, string>;
  /** Each call by an account of its own, made beforehand (delete-user). */
  ownAccount?: true;
}

/**
 * How long a call may take with its last round trip held back before it counts as waiting for it;
 * answered without it, a call takes milliseconds.
 */
const HELD_ANSWER_WAIT_MS = 1_000;

/** One request kind's round trips, warm, and how many of them its answer waited for. */
export interface Counted {
  label: string;
  counts: RoundTrips;
  /** Round trips before the answer: a read-only one commits after it (`db/transaction.ts`). */
  beforeAnswer: number;
  status: string;
}

/** Round trips and bytes of each request kind, warm. */
export async function countRoundTrips(prepare: boolean): Promise<Counted[]> {
  const database = await freshDatabase(databaseUrl, "rpgtrips");
  const target = new URL(database.url);
  // postgres.js writes a pipeline in pieces (it flushes at 1 KB). Across a network the database
  // cannot answer the first piece before the rest arrives; on loopback it can, and the rest would
  // count as a round trip the client never waited for. Held back 2 ms, as by a short network, the
  // count is what a network would see.
  const proxy = RoundTripProxy.start(
    { hostname: target.hostname, port: Number(target.port) },
    NETWORK_MS,
  );
  const viaProxy = new URL(database.url);
  viaProxy.port = String(proxy.port);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  let server: ServerProcess | null = null;
  try {
    server = await ServerProcess.start({
      DATABASE_URL: viaProxy.href,
      DATABASE_POOL_SIZE: "1",
      DATABASE_PREPARE: String(prepare),
      LOG_LEVEL: "silent",
    });
    const account = await createAccount(sql, 2);
    const [apiKey] = await createApiKeys(sql, account.user_id, 1);
    const [source] = await sql<{ id: number }[]>`
      insert into public.content_source (name, user_id, is_published)
      values ('Round trips', ${account.user_id}, false) returning id`;
    const [character] = await sql<{ id: number }[]>`
      insert into public.character (name, user_id) values ('Counted', ${account.user_id})
      returning id`;
    const [client] = await sql<{ id: number }[]>`
      select id from public.api_client where user_id = ${account.user_id}`;
    const [campaign] = await sql<{ id: number }[]>`
      insert into public.campaign (name, user_id) values ('Counted', ${account.user_id})
      returning id`;
    let spellId = 0;
    const kinds: Kind[] = [
      { label: "find-spell by id, JWT", fn: "find-spell", body: () => ({ id: 1 }), auth: "jwt" },
      {
        label: "find-spell by id, API key",
        fn: "find-spell",
        body: () => ({ id: 1 }),
        auth: "api_key",
      },
      { label: "find-spell {} (official)", fn: "find-spell", body: () => ({}), auth: "jwt" },
      { label: "search-data", fn: "search-data", body: () => ({ text: "fire" }), auth: "jwt" },
      {
        label: "create-character",
        fn: "create-character",
        body: () => ({ name: "Counted" }),
        auth: "jwt",
      },
      {
        label: "update-character",
        fn: "update-character",
        body: () => ({ id: character!.id, name: "Recounted" }),
        auth: "jwt",
      },
      {
        label: "create-character, Idempotency-Key",
        fn: "create-character",
        body: () => ({ name: "Keyed" }),
        auth: "jwt",
        headers: () => ({ "Idempotency-Key": crypto.randomUUID() }),
      },
      {
        label: "create-spell",
        fn: "create-spell",
        body: () => ({
          name: `Counted ${crypto.randomUUID()}`,
          rank: 1,
          content_source_id: source!.id,
        }),
        auth: "jwt",
      },
      {
        label: "create-spell, update",
        fn: "create-spell",
        body: () => ({ id: spellId, name: `Renamed ${crypto.randomUUID()}` }),
        auth: "jwt",
      },
      {
        label: "create-content-source",
        fn: "create-content-source",
        body: () => ({ name: `Counted ${crypto.randomUUID()}` }),
        auth: "jwt",
      },
      {
        label: "create-content-source, update",
        fn: "create-content-source",
        body: () => ({ id: source!.id, name: `Renamed ${crypto.randomUUID()}` }),
        auth: "jwt",
      },
      {
        label: "delete-content (spell)",
        fn: "delete-content",
        body: () => ({ type: "spell", id: spellId }),
        auth: "jwt",
      },
      {
        label: "grant-character-access",
        fn: "grant-character-access",
        body: () => ({
          client_id: client!.id,
          user_id: account.user_id,
          character_id: character!.id,
        }),
        auth: "jwt",
      },
      {
        label: "find-character-access",
        fn: "find-character-access",
        body: () => ({ character_id: character!.id }),
        auth: "jwt",
      },
      {
        label: "revoke-character-access",
        fn: "revoke-character-access",
        body: () => ({ client_id: client!.id, character_id: character!.id }),
        auth: "jwt",
      },
      {
        label: "find-character by id",
        fn: "find-character",
        body: () => ({ id: character!.id }),
        auth: "jwt",
      },
      {
        label: "create-campaign",
        fn: "create-campaign",
        body: () => ({ name: "Counted" }),
        auth: "jwt",
      },
      {
        label: "create-campaign, update",
        fn: "create-campaign",
        body: () => ({ id: campaign!.id, name: "Recounted" }),
        auth: "jwt",
      },
      {
        label: "find-campaign by id",
        fn: "find-campaign",
        body: () => ({ id: campaign!.id }),
        auth: "jwt",
      },
      {
        label: "reset-campaign-key",
        fn: "reset-campaign-key",
        body: () => ({ id: campaign!.id }),
        auth: "jwt",
      },
      {
        label: "create-encounter",
        fn: "create-encounter",
        body: () => ({
          name: "Counted",
          icon: "i",
          color: "c",
          combatants: { list: [] },
          meta_data: {},
        }),
        auth: "jwt",
      },
      { label: "find-encounter", fn: "find-encounter", body: () => ({}), auth: "jwt" },
      { label: "get-user (own)", fn: "get-user", body: () => ({}), auth: "jwt" },
      {
        label: "get-user (another's)",
        fn: "get-user",
        body: () => ({ id: account.user_id }),
        auth: "jwt",
      },
      {
        label: "update-user",
        fn: "update-user",
        body: () => ({ summary: "Counted" }),
        auth: "jwt",
      },
      {
        label: "create-api-client",
        fn: "create-api-client",
        body: () => ({ name: "Counted" }),
        auth: "jwt",
      },
      { label: "find-api-client", fn: "find-api-client", body: () => ({}), auth: "jwt" },
      {
        label: "get-api-client-info",
        fn: "get-api-client-info",
        body: () => ({ client_id: client!.id, user_id: account.user_id }),
        auth: "jwt",
      },
      {
        label: "unlock-content-source",
        fn: "unlock-content-source",
        body: () => ({ id: source!.id, access_key: "round-trips" }),
        auth: "jwt",
      },
      {
        label: "vector-db-populate-collection",
        fn: "vector-db-populate-collection",
        body: () => ({ collection: "name", type: "spell", ids: [1] }),
        auth: "jwt",
      },
      {
        label: "vector-db-query-collection",
        fn: "vector-db-query-collection",
        body: () => ({ collection: "name", query: "fire", nResults: 3 }),
        auth: "jwt",
      },
      {
        label: "get-content-versions",
        fn: "get-content-versions",
        body: () => ({ ids: [source!.id] }),
        auth: "jwt",
      },
      {
        label: "get-content-source-stats",
        fn: "get-content-source-stats",
        body: () => ({ content_source_id: source!.id }),
        auth: "jwt",
      },
      {
        label: "create-content-update",
        fn: "create-content-update",
        body: () => ({
          type: "spell",
          action: "CREATE",
          data: { name: "Proposed", rank: 1 },
          content_source_id: source!.id,
        }),
        auth: "jwt",
      },
      { label: "find-content-update", fn: "find-content-update", body: () => ({}), auth: "jwt" },
      { label: "gm-users-in-group", fn: "gm-users-in-group", body: () => ({}), auth: "jwt" },
      { label: "delete-user", fn: "delete-user", body: () => ({}), auth: "jwt", ownAccount: true },
    ];
    const call = async (kind: Kind, own?: Account) => {
      const token = own?.token ?? (kind.auth === "jwt" ? account.token : apiKey!);
      const res = await fetch(`${server!.functionsUrl}/${kind.fn}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...kind.headers?.(),
        },
        body: JSON.stringify(kind.body()),
      });
      const body = await res.json();
      if (kind.fn === "create-spell" && body.status === "success") spellId = body.data.id;
      return `${res.status} ${body.status}`;
    };
    const results = [];
    const createSpell = kinds.find((k) => k.fn === "create-spell")!;
    for (const kind of kinds) {
      // Each delete has a spell of its own to delete.
      if (kind.fn === "delete-content") await call(createSpell);
      const own = kind.ownAccount ? [await createAccount(sql), await createAccount(sql)] : [];
      await call(kind, own[0]); // warms the connection's statements for this kind
      if (kind.fn === "delete-content") await call(createSpell);
      proxy.take();
      const status = await call(kind, own[1]);
      const counts = proxy.take();
      // Whether the answer needed the last round trip: it is held back, and the call made again.
      let beforeAnswer = counts.roundTrips;
      if (beforeAnswer > 1 && !kind.ownAccount) {
        if (kind.fn === "delete-content") await call(createSpell);
        proxy.holdAfter(beforeAnswer - 1);
        const answered = call(kind);
        const timer = new Promise((resolve) => setTimeout(resolve, HELD_ANSWER_WAIT_MS, "held"));
        if (await Promise.race([answered, timer]) === "200 success") beforeAnswer--;
        proxy.release();
        await answered;
        proxy.take();
      }
      results.push({ label: kind.label, counts, beforeAnswer, status });
    }
    // The server's connection is ended from the database's side, as a pooler ends an idle one;
    // once the server has seen it close, the next call opens a new one.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = 'rpg-builder-api' and datname = current_database()`;
    await new Promise((resolve) => setTimeout(resolve, 200));
    proxy.take();
    const status = await call(kinds[0]!);
    const counts = proxy.take();
    results.push({
      label: "find-spell by id, new connection",
      counts,
      beforeAnswer: counts.roundTrips,
      status,
    });
    return results;
  } finally {
    await sql.end();
    await server?.stop();
    proxy.close();
    await database.drop();
  }
}

if (import.meta.main) {
  const rows: string[][] = [[
    "request",
    "prepare",
    "round trips",
    "before the answer",
    "bytes out / in",
    "answer",
  ]];
  for (const prepare of [true, false]) {
    for (const { label, counts, beforeAnswer, status } of await countRoundTrips(prepare)) {
      rows.push([
        label,
        prepare ? "on" : "off",
        String(counts.roundTrips),
        String(beforeAnswer),
        `${counts.bytesOut} / ${counts.bytesIn}`,
        status,
      ]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) console.log(row.map((c, i) => c.padEnd(widths[i]!)).join("  "));
}
