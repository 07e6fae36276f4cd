import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
} from "jose";
import { z } from "zod";
import { env } from "../env.ts";
import { Fail, Unavailable } from "../envelope.ts";
import { refusals } from "../refusals.ts";
import { BoundedMap } from "../bounded_map.ts";
import { errorMessage } from "../error_message.ts";
import { log } from "../log.ts";

/** The claims a request runs under, as PostgREST would set them in `request.jwt.claims`. */
export const Claims = z.looseObject({
  sub: z.uuid(),
  role: z.string(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  iss: z.string().optional(),
  email: z.string().optional(),
  exp: z.number(),
  iat: z.number().optional(),
  /** Set on tokens minted for an API key: the client the key belongs to. */
  api_client_id: z.number().optional(),
});
export type Claims = z.infer<typeof Claims>;

/** What a verified access token is: a user's session, or the project's anon key (signed out). */
export type VerifiedToken =
  | { role: "authenticated"; claims: Claims }
  | { role: "anon"; exp: number };

/**
 * The longest session a user token may claim (`exp - iat`): one week, the most Supabase Auth can
 * be configured to issue (its JWT expiry setting accepts at most 604,800 seconds; the default is
 * one hour). A longer-lived user token was not minted by Auth. The anon key is not a session: it
 * lives as long as the project's (about ten years) and carries no user.
 */
export const MAX_SESSION_SECONDS = 7 * 24 * 3600;

/** The memory verified tokens may hold in an instance: 16 MiB of the platform's 256 MB. */
export const VERIFIED_TOKENS_MAX_BYTES = 16 * 1024 * 1024;

/** How far ahead of this server's clock a token's `iat` may be: Auth's and ours drift a little. */
export const CLOCK_SKEW_SECONDS = 60;

/** Supabase Auth's `iss` for the project at `SUPABASE_URL`; unchecked when that is not set. */
export const expectedIssuer: string | null = env.SUPABASE_URL
  ? `${env.SUPABASE_URL.replace(/\/+$/, "")}/auth/v1`
  : null;

/** The legacy shared secret, where the project still has one. */
const hsKey = env.JWT_SECRET ? new TextEncoder().encode(env.JWT_SECRET) : null;

/**
 * How often an unknown `kid` may refetch the project's JWKS: a key rotation is seen within a
 * minute, and tokens forged with made-up key ids cannot make every request fetch.
 */
const JWKS_REFETCH_COOLDOWN_MS = 60_000;

/**
 * The project's asymmetric signing keys: the JWKS the platform hands every function
 * (SUPABASE_JWKS), else the project's JWKS endpoint (cached, refetched at most once a minute).
 */
const asymmetricKeys = env.SUPABASE_JWKS
  ? createLocalJWKSet(env.SUPABASE_JWKS as Parameters<typeof createLocalJWKSet>[0])
  : env.SUPABASE_URL
  ? createRemoteJWKSet(new URL("/auth/v1/.well-known/jwks.json", env.SUPABASE_URL), {
    cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
    timeoutDuration: 5_000,
  })
  : null;

// The platform starts an instance because a request waits for it: the keys it gives are imported
// while that request is handed over, not during its verification (4-7 ms of an instance's first
// session request, docs/performance.md). A key it cannot import is the deployment's fault: said
// here once, and each token it should verify answers 503 (`verifySignature`).
if (env.SUPABASE_JWKS && asymmetricKeys) {
  for (const key of env.SUPABASE_JWKS.keys) {
    if (typeof key.alg !== "string") continue;
    const header = { alg: key.alg, ...(typeof key.kid === "string" ? { kid: key.kid } : {}) };
    asymmetricKeys(header, { payload: "", signature: "" }).catch((e: unknown) => {
      // Keys without a kid that share an algorithm are told apart by the token's kid, not here.
      if (e instanceof errors.JWKSMultipleMatchingKeys) return;
      const reason = errorMessage(e);
      log.error("signing_key_unusable", { kid: header.kid ?? null, reason });
    });
  }
}

/**
 * Verifies a bearer JWT (HS256 with the project secret, or the project's published asymmetric
 * keys) and says whose it is; any problem is a 401 fail naming it.
 */
export async function verifyToken(token: string): Promise<VerifiedToken> {
  const known = verifiedTokens.get(token);
  if (known) {
    if (expiryOf(known) > Math.floor(Date.now() / 1000)) return known;
    verifiedTokens.delete(token);
    throw refusals.expired();
  }
  const verified = checkClaims(await verifySignature(token));
  verifiedTokens.set(token, Object.freeze(verified), { weight: heldBytes(token, verified) });
  return verified;
}

/** Verifies a signed-in user's access token and returns its claims (the anon key is refused). */
export async function verifyAccessToken(token: string): Promise<Claims> {
  const verified = await verifyToken(token);
  if (verified.role !== "authenticated") throw refusals.noUser();
  return verified.claims;
}

/**
 * Tokens whose signature and claims were checked: a signed-in client sends the same token for up
 * to an hour, and checking its signature again (WebCrypto, asynchronous) was a fifth of the
 * server's work per JWT request. Only tokens that passed are kept, up to VERIFIED_TOKENS_MAX_BYTES
 * (10,000 valid tokens of 11 KB held 188 MB when entries were counted), oldest out first, and
 * expiry is checked on every use as jose checks it (valid while `exp` is after now).
 */
const verifiedTokens = new BoundedMap<string, Readonly<VerifiedToken>>(
  VERIFIED_TOKENS_MAX_BYTES,
);

/**
 * What a kept token holds in memory, over-counted: the token's characters (one byte each, ASCII),
 * its claims parsed into objects (about twice their JSON) and the entry's own overhead. Measured:
 * a full cache of 11 KB tokens holds 14 MB of heap.
 */
function heldBytes(token: string, verified: VerifiedToken): number {
  return token.length + 2 * JSON.stringify(verified).length + 256;
}

function expiryOf(verified: VerifiedToken): number {
  return verified.role === "anon" ? verified.exp : verified.claims.exp;
}

/** What jose throws for a token that is at fault itself (anything else is the keys' source). */
const CALLER_FAULTS = [
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JWTClaimValidationFailed,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
];

/** The algorithms Supabase Auth signs with besides the legacy HS256. */
const ASYMMETRIC = ["ES256", "RS256", "EdDSA"];

/** The token's `alg`; a header that is not a JWT's is the caller's fault. */
function algorithmOf(token: string): string | undefined {
  try {
    return decodeProtectedHeader(token).alg;
  } catch {
    throw refusals.badSignature();
  }
}

async function verifySignature(token: string): Promise<Record<string, unknown>> {
  const alg = algorithmOf(token);
  try {
    if (alg === "HS256" && hsKey) {
      return (await jwtVerify(token, hsKey, { algorithms: ["HS256"] })).payload;
    }
    if (alg !== "HS256" && asymmetricKeys) {
      return (await jwtVerify(token, asymmetricKeys, { algorithms: ASYMMETRIC })).payload;
    }
    throw refusals.unsupportedAlgorithm(alg ?? "none");
  } catch (e) {
    if (e instanceof Fail) throw e;
    if (e instanceof errors.JWTExpired) throw refusals.expired();
    if (CALLER_FAULTS.some((fault) => e instanceof fault)) throw refusals.badSignature();
    // Anything else is the project's keys out of reach (a timeout, an error status, a body that
    // is no JWKS): the token may be good, so it is not the caller's fault.
    throw new Unavailable(e);
  }
}

/**
 * The claim rules, as Supabase issues tokens: a user session has role and audience
 * `authenticated`, a subject, the project's issuer (when `SUPABASE_URL` names the project) and a
 * lifetime Auth can issue; the anon key has role `anon` and no subject. Every other role (the
 * service role key included) is refused: it must never become access through a bearer.
 */
export function checkClaims(
  payload: Record<string, unknown>,
  issuer: string | null = expectedIssuer,
): VerifiedToken {
  if (typeof payload.exp !== "number") throw refusals.badSignature();
  switch (payload.role) {
    case "anon":
      if (payload.sub !== undefined) throw refusals.anonKeyWithUser();
      return { role: "anon", exp: payload.exp };
    case "authenticated":
      return { role: "authenticated", claims: checkSessionClaims(payload, issuer) };
    case "service_role":
      throw refusals.serviceRoleToken();
    default:
      throw refusals.noUser();
  }
}

function checkSessionClaims(payload: Record<string, unknown>, issuer: string | null): Claims {
  const parsed = Claims.safeParse(payload);
  // Only this service mints client-bound tokens; a caller must not present one as its own.
  if (!parsed.success || parsed.data.api_client_id !== undefined) throw refusals.noUser();
  const claims = parsed.data;
  const audiences = typeof claims.aud === "string" ? [claims.aud] : claims.aud ?? [];
  if (!audiences.includes("authenticated")) throw refusals.wrongAudience();
  if (issuer !== null && claims.iss !== issuer) throw refusals.wrongIssuer();
  const now = Math.floor(Date.now() / 1000);
  if (claims.iat !== undefined && claims.iat > now + CLOCK_SKEW_SECONDS) {
    throw refusals.issuedInFuture();
  }
  // Measured from now as well as from iat, so a token dated ahead cannot outlive the cap.
  if (
    claims.iat === undefined || claims.exp - claims.iat > MAX_SESSION_SECONDS ||
    claims.exp - now > MAX_SESSION_SECONDS
  ) {
    throw refusals.tooLongLived(MAX_SESSION_SECONDS);
  }
  return claims;
}
