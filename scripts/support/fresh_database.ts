import postgres from "postgres";

/**
 * Whether the test's own clients name their prepared statements: not behind a transaction-mode
 * pooler that cannot keep them (DATABASE_PREPARE=false, as the server reads it).
 */
export const prepare = !["0", "false"].includes(Deno.env.get("DATABASE_PREPARE") ?? "");

/** A database created for one test or benchmark run, dropped by `drop()`. */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The server-level URL (database `postgres`) of a Postgres URL. */
export function adminUrlOf(url: string): string {
  const admin = new URL(url);
  admin.pathname = "/postgres";
  return admin.href;
}

/**
 * Creates an empty database on the Postgres server of `serverUrl`, named with `prefix`; leftovers
 * of earlier runs with the same prefix that nobody is connected to are dropped first.
 */
export async function freshDatabase(serverUrl: string, prefix: string): Promise<FreshDatabase> {
  if (!/^[a-z][a-z0-9_]*$/.test(prefix)) throw new Error(`Invalid database prefix: ${prefix}`);
  const adminUrl = adminUrlOf(serverUrl);
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, prepare });
  const name = `${prefix}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  try {
    const stale = await admin<{ datname: string }[]>`
      select d.datname from pg_database d
      where d.datname like ${prefix.replaceAll("_", "\\_") + "\\_%"}
        and d.datname < ${`${prefix}_${Date.now() - 3_600_000}`}
        and not exists (select from pg_stat_activity a where a.datname = d.datname)`;
    for (const { datname } of stale) {
      await admin.unsafe(`drop database if exists "${datname}"`).catch(() => {});
    }
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const dropper = postgres(adminUrl, { max: 1, onnotice: () => {}, prepare });
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
