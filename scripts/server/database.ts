import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** A database the server can reach over the Postgres wire protocol. */
export interface LocalDatabase {
  kind: "postgres" | "embedded";
  url: string;
  /** PGlite has a single session, so the pool must hold one connection there. */
  poolSize: number;
  close(): Promise<void>;
}

/** Where the embedded server records its socket port, so other commands reach it while it runs. */
export function socketFile(dataDir: string): string {
  return `${dataDir}/socket.json`;
}

/**
 * Opens the embedded PGlite database (persisted in `dataDir`, or in memory when null) and serves
 * it on a loopback port. Two connections: the server's one pooled connection, and one spare for a
 * short command such as `dev:user` while the server runs.
 */
export async function openEmbedded(dataDir: string | null): Promise<LocalDatabase> {
  if (dataDir) await Deno.mkdir(dataDir, { recursive: true });
  const db = await PGlite.create({
    ...(dataDir ? { dataDir: `${dataDir}/pgdata` } : {}),
    extensions: { pg_trgm },
  });
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 2 });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  if (dataDir) {
    await Deno.writeTextFile(socketFile(dataDir), JSON.stringify({ pid: Deno.pid, port }));
  }
  return {
    kind: "embedded",
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    poolSize: 1,
    async close() {
      await server.stop();
      await db.close();
      if (dataDir) await Deno.remove(socketFile(dataDir)).catch(() => {});
    },
  };
}

/** The address of a running embedded server for this data folder, or null when none runs. */
export async function runningEmbedded(dataDir: string): Promise<string | null> {
  let port: number;
  try {
    port = JSON.parse(await Deno.readTextFile(socketFile(dataDir))).port;
  } catch {
    return null;
  }
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return `postgres://postgres@127.0.0.1:${port}/postgres`;
  } catch {
    return null;
  }
}
