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

/** A request kind sent with the account's session token, labelled by its function unless told. */
function jwt(fn: string, body: () => unknown, label = fn): Kind {
  return { label, fn, body, auth: "jwt" };
}

/** One request kind's round trips, warm, and how many of them its answer waited for. */
export interface Counted {
  label: string;
  counts: RoundTrips;
  /** Round trips before the answer: a read-only one commits after it (`db/transaction.ts`). */
  beforeAnswer: number;
  status: string;
}

/**
 * Round trips and bytes of each request kind, warm, on a fresh database of the Postgres at
 * `databaseUrl` (a role that may create databases and end their sessions).
 */
export async function countRoundTrips(
  prepare: boolean,
  databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres",
): Promise<Counted[]> {
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
    const user = account.user_id;
    const id = async (rows: PromiseLike<{ id: number }[]>) => (await rows)[0]!.id;
    const source = await id(sql`insert into public.content_source (name, user_id, is_published)
      values ('Round trips', ${user}, false) returning id`);
    const character = await id(sql`insert into public.character (name, user_id)
      values ('Counted', ${user}) returning id`);
    const client = await id(sql`select id from public.api_client where user_id = ${user}`);
    const campaign = await id(sql`insert into public.campaign (name, user_id)
      values ('Counted', ${user}) returning id`);
    const renamed = () => `Renamed ${crypto.randomUUID()}`;
    let spellId = 0;
    const kinds: Kind[] = [
      jwt("find-spell", () => ({ id: 1 }), "find-spell by id, JWT"),
      { ...jwt("find-spell", () => ({ id: 1 }), "find-spell by id, API key"), auth: "api_key" },
      jwt("find-spell", () => ({}), "find-spell {} (official)"),
      jwt("search-data", () => ({ text: "fire" })),
      jwt("create-character", () => ({ name: "Counted" })),
      jwt("update-character", () => ({ id: character, name: "Recounted" })),
      {
        ...jwt("create-character", () => ({ name: "Keyed" }), "create-character, Idempotency-Key"),
        headers: () => ({ "Idempotency-Key": crypto.randomUUID() }),
      },
      jwt("create-spell", () => ({ name: renamed(), rank: 1, content_source_id: source })),
      jwt("create-spell", () => ({ id: spellId, name: renamed() }), "create-spell, update"),
      jwt("create-content-source", () => ({ name: renamed() })),
      jwt(
        "create-content-source",
        () => ({ id: source, name: renamed() }),
        "create-content-source, update",
      ),
      jwt("delete-content", () => ({ type: "spell", id: spellId }), "delete-content (spell)"),
      jwt(
        "grant-character-access",
        () => ({ client_id: client, user_id: user, character_id: character }),
      ),
      jwt("find-character-access", () => ({ character_id: character })),
      jwt("revoke-character-access", () => ({ client_id: client, character_id: character })),
      jwt("find-character", () => ({ id: character }), "find-character by id"),
      jwt("create-campaign", () => ({ name: "Counted" })),
      jwt(
        "create-campaign",
        () => ({ id: campaign, name: "Recounted" }),
        "create-campaign, update",
      ),
      jwt("find-campaign", () => ({ id: campaign }), "find-campaign by id"),
      jwt("reset-campaign-key", () => ({ id: campaign })),
      jwt(
        "create-encounter",
        () => ({ name: "Counted", icon: "i", color: "c", combatants: { list: [] }, meta_data: {} }),
      ),
      jwt("find-encounter", () => ({})),
      jwt("get-user", () => ({}), "get-user (own)"),
      jwt("get-user", () => ({ id: user }), "get-user (another's)"),
      jwt("update-user", () => ({ summary: "Counted" })),
      jwt("create-api-client", () => ({ name: "Counted" })),
      jwt("find-api-client", () => ({})),
      jwt("get-api-client-info", () => ({ client_id: client, user_id: user })),
      jwt("unlock-content-source", () => ({ id: source, access_key: "round-trips" })),
      jwt("vector-db-populate-collection", () => ({ collection: "name", type: "spell", ids: [1] })),
      jwt("vector-db-query-collection", () => ({ collection: "name", query: "fire", nResults: 3 })),
      jwt("get-content-versions", () => ({ ids: [source] })),
      jwt("get-content-source-stats", () => ({ content_source_id: source })),
      jwt("create-content-update", () => ({
        type: "spell",
        action: "CREATE",
        data: { name: "Proposed", rank: 1 },
        content_source_id: source,
      })),
      jwt("find-content-update", () => ({})),
      jwt("gm-users-in-group", () => ({})),
      { ...jwt("delete-user", () => ({})), ownAccount: true },
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
    const results: Counted[] = [];
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
    const label = "find-spell by id, new connection";
    return [...results, { label, counts, beforeAnswer: counts.roundTrips, status }];
  } finally {
    await sql.end();
    await server?.stop();
    proxy.close();
    await database.drop();
  }
}

if (import.meta.main) {
  const rows = ["request|prepare|round trips|before the answer|bytes out / in|answer".split("|")];
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
