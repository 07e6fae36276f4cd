/**
 * LOCAL DEVELOPMENT ONLY: a stand-in for the few Supabase Auth endpoints that supabase-js calls for
 * password sign-in, so the web pages sign in against the local server exactly as they would against
 * a hosted project. It lives in the local server alone and is never deployed as a function: hosted,
 * the same paths belong to the project's real Auth service.
 *
 * Any email signs in (an unknown one creates the local account, as `deno task dev:user` does) with
 * any non-empty password; local accounts have no passwords.
 */
import { z } from "zod";
import { upsertDevUser } from "../../tools/dev_user.ts";
import { verifyAccessToken } from "../../../supabase/functions/_shared/auth/jwt.ts";
import { signLocalAccessToken, signLocalAnonKey } from "../../support/local_tokens.ts";
import { ownerSql } from "../owner_pool.ts";
import { Fail } from "../../../supabase/functions/_shared/envelope.ts";

const PREFIX = "/auth/v1/";
const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 7 * 24 * 3600;
/** supabase-js reads `code` from error bodies only when the response names this API version. */
const API_VERSION = "2024-01-01";

const headers = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers":
    "authorization, apikey, content-type, x-client-info, x-supabase-api-version",
  "X-Supabase-Api-Version": API_VERSION,
  "Cache-Control": "no-store",
};

const PasswordGrant = z.object({ email: z.string().trim().toLowerCase(), password: z.string() });
const RefreshGrant = z.object({ refresh_token: z.string() });

interface AccountRow {
  id: string;
  email: string;
  created_at: string;
  updated_at: string;
}

/** Refresh tokens of this process: a restart signs everybody out, which suits a local server. */
const refreshTokens = new Map<string, { userId: string; expiresAt: number }>();

/** Answers the emulated Auth paths under `/auth/v1/`; passes every other request on. */
export async function localAuthRoute(req: Request): Promise<Response | null> {
  const url = new URL(req.url);
  if (!url.pathname.startsWith(PREFIX)) return null;
  if (req.method === "OPTIONS") return new Response(null, { status: 204, headers });
  const path = url.pathname.slice(PREFIX.length).replace(/\/$/, "");
  try {
    if (path === "token" && req.method === "POST") {
      const grant = url.searchParams.get("grant_type");
      if (grant === "password") return await passwordGrant(req);
      if (grant === "refresh_token") return await refreshGrant(req);
      return authError(
        400,
        "unsupported_grant_type",
        "Local sign-in supports password and refresh",
      );
    }
    if (path === "user" && req.method === "GET") return await currentUser(req);
    if (path === "logout" && req.method === "POST") return await logout(req);
    if (path === "local-accounts" && req.method === "GET") return await recentAccounts();
    return authError(
      404,
      "not_found",
      "The local server emulates only password sign-in, token refresh, user and logout",
    );
  } catch (e) {
    if (e instanceof Fail) return authError(e.httpStatus, "bad_jwt", e.message);
    throw e;
  }
}

/** The anon key the pages use locally: a project-style `anon` token signed with the local secret. */
export async function localAnonKey(): Promise<string> {
  anonKey ??= signLocalAnonKey();
  return await anonKey;
}
let anonKey: Promise<string> | undefined;

async function passwordGrant(req: Request): Promise<Response> {
  const body = PasswordGrant.safeParse(await readJson(req));
  if (!body.success || !body.data.email) {
    return authError(400, "validation_failed", "Enter an email address and a password");
  }
  if (!body.data.password) return authError(400, "validation_failed", "Enter a password");
  const account = await findOrCreateAccount(body.data.email);
  if (!account) return authError(400, "email_address_invalid", "Enter a valid email address");
  return await sessionFor(account);
}

async function refreshGrant(req: Request): Promise<Response> {
  const body = RefreshGrant.safeParse(await readJson(req));
  const stored = body.success ? refreshTokens.get(body.data.refresh_token) : undefined;
  if (!body.success || !stored || stored.expiresAt < Date.now()) {
    return authError(400, "refresh_token_not_found", "Your session has ended: sign in again");
  }
  refreshTokens.delete(body.data.refresh_token);
  const account = await accountById(stored.userId);
  if (!account) return authError(403, "user_not_found", "This local account no longer exists");
  return await sessionFor(account);
}

async function currentUser(req: Request): Promise<Response> {
  const claims = await verifyAccessToken(bearer(req));
  const account = await accountById(claims.sub);
  if (!account) return authError(403, "user_not_found", "This local account no longer exists");
  return Response.json(userJson(account), { headers });
}

async function logout(req: Request): Promise<Response> {
  const claims = await verifyAccessToken(bearer(req));
  for (const [token, entry] of refreshTokens) {
    if (entry.userId === claims.sub) refreshTokens.delete(token);
  }
  return new Response(null, { status: 204, headers });
}

/** The most recently created local accounts, so the sign-in page can offer them to pick from. */
async function recentAccounts(): Promise<Response> {
  const rows = await ownerSql()<{ email: string }[]>`
    select email from auth.users where email is not null order by created_at desc limit 20`;
  return Response.json(rows.map((r) => r.email), { headers });
}

async function findOrCreateAccount(email: string): Promise<AccountRow | null> {
  const [existing] = await ownerSql()<AccountRow[]>`
    select id::text, email, created_at, updated_at from auth.users
    where lower(email) = ${email} order by created_at limit 1`;
  if (existing) return existing;
  // Only new accounts go through upsertDevUser: it also resets the tier, which must stay as set.
  try {
    const created = await upsertDevUser(ownerSql(), { email, tier: 0, admin: false });
    return await accountById(created.user_id);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith("Invalid email")) return null;
    throw e;
  }
}

async function accountById(userId: string): Promise<AccountRow | null> {
  const [row] = await ownerSql()<AccountRow[]>`
    select id::text, email, created_at, updated_at from auth.users where id = ${userId}`;
  return row ?? null;
}

async function sessionFor(account: AccountRow): Promise<Response> {
  const refreshToken = crypto.randomUUID();
  refreshTokens.set(refreshToken, {
    userId: account.id,
    expiresAt: Date.now() + REFRESH_TOKEN_SECONDS * 1000,
  });
  const accessToken = await signLocalAccessToken(account.id, account.email, ACCESS_TOKEN_SECONDS);
  return Response.json({
    access_token: accessToken,
    token_type: "bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    expires_at: Math.floor(Date.now() / 1000) + ACCESS_TOKEN_SECONDS,
    refresh_token: refreshToken,
    user: userJson(account),
  }, { headers });
}

/** The user object in the shape Supabase Auth returns it. */
function userJson(account: AccountRow) {
  return {
    id: account.id,
    aud: "authenticated",
    role: "authenticated",
    email: account.email,
    email_confirmed_at: account.created_at,
    app_metadata: { provider: "email", providers: ["email"] },
    user_metadata: {},
    identities: [],
    is_anonymous: false,
    created_at: account.created_at,
    updated_at: account.updated_at,
  };
}

function bearer(req: Request): string {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  if (!match?.[1]) throw new Fail("Missing bearer token: sign in first", 401);
  return match[1];
}

async function readJson(req: Request): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    return null;
  }
}

function authError(status: number, code: string, message: string): Response {
  return Response.json({ code, error_code: code, msg: message, message }, { status, headers });
}
