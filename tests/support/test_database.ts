import postgres from "postgres";
import { runningEmbedded } from "../../scripts/server/database.ts";
import { freshDatabase, prepare } from "../../scripts/support/fresh_database.ts";
import { type ServerEnv, ServerProcess } from "../../scripts/support/server_process.ts";

const root = new URL("../../", import.meta.url);

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

/**
 * The environment this process was launched with. Test modules share one process, and the harness
 * overwrites DATABASE_URL with the database it made, so the launch value is read from /proc.
 */
function launchEnv(name: string): string | undefined {
  try {
    const entries = Deno.readTextFileSync("/proc/self/environ").split("\0");
    const entry = entries.find((e) => e.startsWith(`${name}=`));
    return entry?.slice(name.length + 1);
  } catch {
    return Deno.env.get(name);
  }
}

/** The real Postgres this test run was pointed at (DATABASE_URL), or null for the embedded one. */
export function realPostgresUrl(): string | null {
  return launchEnv("DATABASE_URL") ?? null;
}

/** A fresh database of the kind asked for. */
export async function testDatabase(kind: "postgres" | "embedded"): Promise<TestDatabase> {
  if (kind === "postgres") {
    const serverUrl = realPostgresUrl() ?? "postgres://postgres@127.0.0.1:5432/postgres";
    const db = await freshDatabase(serverUrl, "rpgfault");
    return {
      kind,
      env: { DATABASE_URL: db.url },
      connect: () => Promise.resolve(postgres(db.url, { max: 2, onnotice: () => {}, prepare })),
      cleanup: () => db.drop(),
    };
  }
  const dataDir = await Deno.makeTempDir({ prefix: "rpgfault-" });
  await copyFolder(await embeddedTemplate(), dataDir);
  return {
    kind,
    env: { DATA_DIR: dataDir },
    async connect() {
      const url = await runningEmbedded(dataDir);
      if (!url) throw new Error(`No server runs on the embedded folder ${dataDir}`);
      // A server that has just started may reset the spare connection once before it accepts it.
      for (let attempt = 1;; attempt++) {
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          await sql`select 1`;
          return sql;
        } catch (error) {
          await sql.end({ timeout: 0 }).catch(() => {});
          if (attempt === 5) throw error;
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
    },
    cleanup: () => Deno.remove(dataDir, { recursive: true }).catch(() => {}),
  };
}

/** The database this run targets: real Postgres when DATABASE_URL is set, else embedded. */
export async function defaultTestDatabase(): Promise<TestDatabase> {
  return await testDatabase(realPostgresUrl() ? "postgres" : "embedded");
}

/**
 * A migrated and seeded embedded data folder to copy from. Migrating PGlite takes tens of seconds,
 * so it is done once per set of migrations (the folder name carries their hash) and reused.
 */
async function embeddedTemplate(): Promise<string> {
  const base = Deno.env.get("TMPDIR") ?? "/tmp";
  const path = `${base}/rpgfault-template-${await schemaHash()}`;
  try {
    await Deno.stat(`${path}/pgdata`);
    return path;
  } catch {
    // not made yet
  }
  const building = await Deno.makeTempDir({ prefix: "rpgfault-building-" });
  const server = await ServerProcess.start({ DATA_DIR: building });
  server.kill("SIGTERM");
  const status = await server.status;
  if (status.code !== 0) {
    throw new Error(`The template server did not stop cleanly:\n${server.output}`);
  }
  try {
    await Deno.rename(building, path);
  } catch {
    // another run made it meanwhile
    await Deno.remove(building, { recursive: true });
  }
  return path;
}

/** A hash of everything that shapes a fresh database: bootstrap, migrations, seed, dependencies. */
async function schemaHash(): Promise<string> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL("supabase/migrations/", root))) {
    if (entry.name.endsWith(".sql")) files.push(`supabase/migrations/${entry.name}`);
  }
  files.sort();
  files.push("scripts/server/local_bootstrap.sql", "supabase/seed.sql", "deno.json");
  let text = "";
  for (const file of files) {
    text += `${file}\n${await Deno.readTextFile(new URL(file, root)).catch(() => "")}\n`;
  }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

async function copyFolder(from: string, to: string): Promise<void> {
  const { code } = await new Deno.Command("cp", { args: ["-a", `${from}/.`, to] }).output();
  if (code !== 0) throw new Error(`Copying ${from} to ${to} failed`);
}
