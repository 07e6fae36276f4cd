import { loadEnvFile } from "../server/env_file.ts";

/**
 * Prints the local project's anon key: a JWT with role `anon`, signed with JWT_SECRET and
 * shaped like a Supabase project's (no user, about ten years). Signed-out supabase-js clients send
 * it; the web app's build takes it as `VITE_SUPABASE_KEY`. The same secret always gives the same key.
 */
if (import.meta.main) {
  await loadEnvFile();
  const { signLocalAnonKey } = await import("../support/local_tokens.ts");
  console.log(await signLocalAnonKey());
}
