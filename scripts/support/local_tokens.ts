/**
 * Tokens signed with the project's legacy secret (JWT_SECRET), as Supabase Auth signs them: for
 * the local server's sign-in, `dev:user`, `dev:anon-key`, the benchmarks and the tests. The
 * functions only verify tokens (`_shared/auth/jwt.ts`). Reads the environment when it loads, as
 * the functions' modules do: import it once the environment is set.
 */
import { SignJWT } from "jose";
import { ConfigurationError, env } from "../../supabase/functions/_shared/env.ts";
import { expectedIssuer } from "../../supabase/functions/_shared/auth/jwt.ts";

function signingKey(): Uint8Array {
  if (!env.JWT_SECRET) {
    throw new ConfigurationError(
      "Invalid environment: signing local tokens needs JWT_SECRET (the project's legacy secret)",
    );
  }
  return new TextEncoder().encode(env.JWT_SECRET);
}

/** Signs a Supabase-shaped access token for a local account. */
export async function signLocalAccessToken(
  userId: string,
  email: string,
  lifetimeSeconds = 3600,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT({
    ...(expectedIssuer === null ? {} : { iss: expectedIssuer }),
    sub: userId,
    role: "authenticated",
    aud: "authenticated",
    email,
    session_id: crypto.randomUUID(),
    iat: now,
    exp: now + lifetimeSeconds,
  }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(signingKey());
}

/** When the local anon key was issued (fixed, so the key is the same on every run). */
const LOCAL_ANON_KEY_ISSUED = Date.UTC(2026, 0, 1) / 1000;
const LOCAL_ANON_KEY_SECONDS = 10 * 365 * 24 * 3600;

/**
 * The project's anon key for this secret, shaped as Supabase's (role `anon`, no user, about ten
 * years): what signed-out supabase-js clients send as bearer and `apikey`. Deterministic: the
 * same secret always gives the same key, so a web build can keep it.
 */
export async function signLocalAnonKey(): Promise<string> {
  return await new SignJWT({
    iss: "supabase",
    role: "anon",
    iat: LOCAL_ANON_KEY_ISSUED,
    exp: LOCAL_ANON_KEY_ISSUED + LOCAL_ANON_KEY_SECONDS,
  }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(signingKey());
}
