import postgres from "postgres";
import { runningEmbedded } from "../../scripts/database.ts";
import { freshDatabase } from "./fresh_database.ts";
import type { ServerEnv } from "./server_process.ts";

/** A database for a server subprocess: a fresh one on real Postgres, or an embedded data folder. */
export interface TestDatabase {
  kind: "postgres" | "embedded";
  /** What the server subprocess needs in its environment to use this database. */
  env: ServerEnv;
  /**
   * A connection as the database owner for arranging and checking rows. On the embedded database
   * this is the socket's spare connection, so it exists only while a server runs on the folder.
   */
  connect(): Promise<postgres.Sql>;
  /** Drops the database or removes the folder. */
  cleanup(): Promise<void>;
}

/** The real Postgres this test run was pointed at (DATABASE_URL), or null for the embedded one. */
export function realPostgresUrl(): string | null {
  return Deno.env.get("DATABASE_URL") ?? null;
}

/** A fresh database of the kind asked for. */
export async function testDatabase(kind: "postgres" | "embedded"): Promise<TestDatabase> {
  if (kind === "postgres") {
    const serverUrl = realPostgresUrl() ?? "postgres://postgres@127.0.0.1:5432/postgres";
    const db = await freshDatabase(serverUrl, "rpgfault");
    return {
      kind,
      env: { DATABASE_URL: db.url },
      connect: () => Promise.resolve(postgres(db.url, { max: 2, onnotice: () => {} })),
      cleanup: () => db.drop(),
    };
  }
  const dataDir = await Deno.makeTempDir({ prefix: "rpgfault-" });
  return {
    kind,
    env: { DATA_DIR: dataDir },
    async connect() {
      const url = await runningEmbedded(dataDir);
      if (!url) throw new Error(`No server runs on the embedded folder ${dataDir}`);
      return postgres(url, { max: 1, onnotice: () => {} });
    },
    cleanup: () => Deno.remove(dataDir, { recursive: true }).catch(() => {}),
  };
}

/** The database this run targets: real Postgres when DATABASE_URL is set, else embedded. */
export async function defaultTestDatabase(): Promise<TestDatabase> {
  return await testDatabase(realPostgresUrl() ? "postgres" : "embedded");
}
