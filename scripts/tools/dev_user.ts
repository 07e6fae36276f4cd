import postgres from "postgres";
import { parseArgs } from "node:util";
import { openEmbedded, runningEmbedded } from "../server/database.ts";
import { loadEnvFile } from "../server/env_file.ts";
import { migrate } from "../server/migrate.ts";
import { errorMessage } from "../../supabase/functions/_shared/error_message.ts";

const USAGE = "Usage: deno task dev:user --email E [--tier N] [--admin]";

/** A local account as dev:user prints it. */
export interface DevUser {
  user_id: string;
  access_token: string;
}

/**
 * Creates or updates a local account with the given supporter tier and admin flag, in one
 * statement batch (so it is atomic even on the embedded server's shared session), and signs a
 * one-hour access token for it.
 */
export async function upsertDevUser(
  sql: postgres.Sql,
  input: { email: string; tier: number; admin: boolean },
  sign?: (userId: string, email: string) => Promise<string>,
): Promise<DevUser> {
  if (!/^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+$/.test(input.email)) {
    throw new Error(`Invalid email: ${input.email}`);
  }
  if (!Number.isInteger(input.tier) || input.tier < 0 || input.tier > 4) {
    throw new Error("Invalid tier: expected an integer from 0 to 4");
  }
  // One simple-protocol batch: values are checked above and contain no quote characters.
  const rows = await sql.unsafe(`
    insert into auth.users (id, email) select gen_random_uuid(), '${input.email}'
      where not exists (select from auth.users where email = '${input.email}');
    update public.public_user set supporter_tier = ${input.tier}, is_admin = ${input.admin}
      where user_id = (select id from auth.users where email = '${input.email}');
    select id::text as user_id from auth.users where email = '${input.email}';
  `);
  const last = (rows as unknown as { user_id: string }[][]).at(-1)?.[0];
  if (!last) throw new Error("The account could not be created");
  const signer = sign ??
    (await import("../support/local_tokens.ts")).signLocalAccessToken;
  return { user_id: last.user_id, access_token: await signer(last.user_id, input.email) };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      email: { type: "string" },
      tier: { type: "string", default: "0" },
      admin: { type: "boolean", default: false },
    },
  });
  if (!values.email) {
    console.error(USAGE);
    Deno.exit(2);
  }
  await loadEnvFile();
  const dataDir = Deno.env.get("DATA_DIR") ?? ".data";
  const url = Deno.env.get("DATABASE_URL") ?? await runningEmbedded(dataDir);
  const embedded = url ? null : await openEmbedded(dataDir);
  const sql = postgres(url ?? embedded!.url, { max: 1, onnotice: () => {} });
  try {
    if (embedded) await migrate(sql, { seed: true });
    const user = await upsertDevUser(sql, {
      email: values.email,
      tier: Number(values.tier),
      admin: values.admin,
    });
    console.log(JSON.stringify(user));
  } catch (e) {
    console.error(errorMessage(e));
    Deno.exitCode = 1;
  } finally {
    await sql.end();
    await embedded?.close();
  }
}
