import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import { env } from "../env.ts";
import { Fail } from "../envelope.ts";

/** The claims a request runs under, as PostgREST would set them in `request.jwt.claims`. */
export const Claims = z.looseObject({
  sub: z.uuid(),
  role: z.string(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  email: z.string().optional(),
  exp: z.number(),
  iat: z.number().optional(),
  /** Set on tokens minted for an API key: the client the key belongs to. */
  api_client_id: z.number().optional(),
});
export type Claims = z.infer<typeof Claims>;

const hsKey = new TextEncoder().encode(env.SUPABASE_JWT_SECRET);
const remoteKeys = env.SUPABASE_URL
  ? createRemoteJWKSet(new URL("/auth/v1/.well-known/jwks.json", env.SUPABASE_URL))
  : null;

/**
 * Verifies an identity-provider access token (HS256 with the project secret, or the project's
 * published asymmetric keys) and returns its claims; any problem is a 401 fail.
 */
export async function verifyAccessToken(token: string): Promise<Claims> {
  const known = verifiedTokens.get(token);
  if (known) {
    if (known.exp > Math.floor(Date.now() / 1000)) return known;
    verifiedTokens.delete(token);
    throw new Fail("Invalid token: the token has expired", 401);
  }
  const claims = await verifySignedToken(token);
  if (verifiedTokens.size >= MAX_VERIFIED_TOKENS) {
    verifiedTokens.delete(verifiedTokens.keys().next().value!);
  }
  verifiedTokens.set(token, Object.freeze(claims));
  return claims;
}

/**
 * Tokens whose signature and claims were checked: a signed-in client sends the same token for up
 * to an hour, and checking its signature again (WebCrypto, asynchronous) was a fifth of the
 * server's work per JWT request. Only tokens that passed are kept, oldest out first, and expiry is
 * checked on every use as jose checks it (valid while `exp` is after now).
 */
const verifiedTokens = new Map<string, Readonly<Claims>>();
const MAX_VERIFIED_TOKENS = 10_000;

async function verifySignedToken(token: string): Promise<Claims> {
  let payload: unknown;
  try {
    const { alg } = decodeProtectedHeader(token);
    if (alg === "HS256") {
      payload = (await jwtVerify(token, hsKey, { algorithms: ["HS256"] })).payload;
    } else if (remoteKeys) {
      payload = (await jwtVerify(token, remoteKeys)).payload;
    } else {
      throw new Fail(`Invalid token: unsupported signing algorithm ${alg ?? "none"}`, 401);
    }
  } catch (e) {
    if (e instanceof Fail) throw e;
    if (e instanceof errors.JWTExpired) throw new Fail("Invalid token: the token has expired", 401);
    throw new Fail("Invalid token: the signature or format is not valid", 401);
  }
  const claims = Claims.safeParse(payload);
  if (!claims.success) throw new Fail("Invalid token: the token carries no user", 401);
  if (claims.data.role !== "authenticated") {
    throw new Fail("User not found: sign in to call this endpoint", 401);
  }
  // Only this service mints client-bound tokens; a caller must not present one as its own.
  if (claims.data.api_client_id !== undefined) {
    throw new Fail("Invalid token: the token carries no user", 401);
  }
  return claims.data;
}

/** Signs a Supabase-shaped access token for a local account (used by `dev:user` and tests). */
export async function signLocalAccessToken(
  userId: string,
  email: string,
  lifetimeSeconds = 3600,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT({
    sub: userId,
    role: "authenticated",
    aud: "authenticated",
    email,
    session_id: crypto.randomUUID(),
    iat: now,
    exp: now + lifetimeSeconds,
  }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(hsKey);
}
