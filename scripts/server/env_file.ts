const root = new URL("../../", import.meta.url);

/** Variables only the local server reads (the functions' own are in `_shared/env.ts`). */
export const LOCAL_SERVER_VARIABLES: readonly string[] = [
  "PORT",
  "WORKERS",
  "MAX_CONNECTIONS",
  "WEB_SUPABASE_URL",
  "WEB_SUPABASE_ANON_KEY",
];

/**
 * Fills the process environment from `.env` without overriding anything already set, and decides
 * whether this is local development: `LOCAL_DEVELOPMENT` as given, else on when no `DATABASE_URL`
 * (nor the platform's SUPABASE_DB_URL) is configured (the embedded default). Only in local
 * development are the published `.env.example` values filled in too; anywhere else a missing
 * secret stops the start instead of silently using a value everybody can read.
 */
export async function loadEnvFile(): Promise<string> {
  const loaded: string[] = [];
  if (await fill(".env")) loaded.push(".env");
  const database = Deno.env.get("DATABASE_URL") || Deno.env.get("SUPABASE_DB_URL");
  if (Deno.env.get("LOCAL_DEVELOPMENT") === undefined && !database) {
    Deno.env.set("LOCAL_DEVELOPMENT", "1");
  }
  if (isLocalDevelopment() && await fill(".env.example")) loaded.push(".env.example");
  return loaded.join(", ") || "(none)";
}

/** Whether the explicit local-development switch is on. */
export function isLocalDevelopment(): boolean {
  return ["1", "true"].includes(Deno.env.get("LOCAL_DEVELOPMENT") ?? "");
}

async function fill(name: string): Promise<boolean> {
  let text: string;
  try {
    text = await Deno.readTextFile(new URL(name, root));
  } catch {
    return false;
  }
  for (const line of text.split("\n")) {
    const match = /^\s*([A-Z][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const value = match[2].replace(/^(['"])(.*)\1$/, "$2");
    if (Deno.env.get(match[1]) === undefined) Deno.env.set(match[1], value);
  }
  return true;
}
