/**
 * The test harness: one server per test process, started in-process on a fresh database (a new
 * database on DATABASE_URL's server when set, else an in-memory embedded one). With REDIS_URL, its
 * rate limiter is @upstash/ratelimit through the Upstash stand-in in front of that Redis, as on the
 * platform; without, the database keeps the counts. Tests talk to it over real HTTP.
 */
import postgres from "postgres";
import { SignJWT } from "jose";
import { type RunningServer, startServer } from "../scripts/server/server.ts";
import { type HostedEmulation, startHostedEmulation } from "../scripts/hosted/emulation.ts";
import { fetchFrom, randomIp } from "./support/http.ts";
import { useRunSecrets } from "../scripts/support/run_secrets.ts";
import { prepare } from "../scripts/support/fresh_database.ts";
import { loadEnvFile } from "../scripts/server/env_file.ts";
import { UpstashStandIn } from "../scripts/support/upstash_stand_in.ts";

Deno.env.set("LOG_LEVEL", Deno.env.get("TEST_LOG_LEVEL") ?? "silent");
Deno.env.set("RATE_LIMIT_PREFIX", `test-${crypto.randomUUID()}`);
// The server under test is configured as deployed: TRUST_PROXY off (tests pick their client
// address by connecting from it, see `call`), no local development (which a start on the embedded
// database would otherwise switch on: no sign-in stand-in, no example secrets), and secrets of
// its own. A test that needs a switch starts a server of its own with it.
Deno.env.set("LOCAL_DEVELOPMENT", "0");
useRunSecrets();

async function freshDatabase(adminUrl: string): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, prepare });
  try {
    // Databases of earlier runs are dropped once they are a day old; a running suite's is younger.
    const stale = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like 'rpgtest\\_%'`;
    const dayAgo = Date.now() - 24 * 3600 * 1000;
    for (const { datname } of stale) {
      if (Number(datname.split("_")[1]) < dayAgo) {
        await admin.unsafe(`drop database if exists "${datname}"`).catch(() => {});
      }
    }
    const name = `rpgtest_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
    await admin.unsafe(`create database "${name}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.href;
  } finally {
    await admin.end();
  }
}

/**
 * With TEST_TARGET=hosted the suite runs against the emulated hosted project instead
 * (scripts/hosted/emulation.ts): every function in its own instance on the platform's Deno, with
 * the platform's environment only, its database roles and its pooler; tests that need the
 * in-process server skip themselves there (`localOnly`).
 */
const targetsHosted = Deno.env.get("TEST_TARGET") === "hosted";
// Tests of single modules load them in this process, which needs the local configuration.
if (targetsHosted) await loadEnvFile();
export const hosted: HostedEmulation | null = targetsHosted
  ? await startHostedEmulation({
    redisUrl: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
    verbose: Deno.env.get("TEST_LOG_LEVEL") === "info",
  })
  : null;
if (hosted) {
  // Tests that act as the moderation bot, or sign legacy tokens, use the project's own secrets.
  Deno.env.set("CONTENT_UPDATE_SECRET", hosted.moderationSecret);
  Deno.env.set("JWT_SECRET", hosted.legacySecret);
  // Modules this process loads itself (the owner's pool among them) reach the project's database.
  Deno.env.set("DATABASE_URL", hosted.ownerUrl);
}

const redisUrl = Deno.env.get("REDIS_URL");
const localLimiterStore = hosted || !redisUrl ? null : UpstashStandIn.start(redisUrl);
for (const [name, value] of Object.entries(localLimiterStore?.env ?? {})) Deno.env.set(name, value);
/** The rate limiter's Upstash store, when the server under test has one (a test may take it down). */
export const limiterStore: UpstashStandIn | null = hosted?.limiterStore ?? localLimiterStore;

const sharedUrl = hosted ? null : Deno.env.get("DATABASE_URL");
if (sharedUrl) Deno.env.set("DATABASE_URL", await freshDatabase(sharedUrl));

/** The in-process server (null when the suite targets the emulated hosted project). */
export const localServer: RunningServer | null = hosted
  ? null
  : await startServer({ port: 0, dataDir: null });

/** The server under test: in this process, or the emulated hosted project's gateway. */
export const server: Pick<RunningServer, "functionsUrl" | "appUrl" | "close"> = localServer ?? {
  functionsUrl: hosted!.functionsUrl,
  appUrl: hosted!.projectUrl,
  close: hosted!.close,
};

/**
 * A pool connected as the database owner, for arranging and checking rows directly (requests
 * connect as `api_authenticator`). On the embedded database it is the server's own pool: sharing
 * it keeps the single session free of interleaving. Hosted, it is the project's `postgres` role.
 */
export const adminSql: postgres.Sql = (await import("../scripts/server/owner_pool.ts")).ownerSql();

/** Signs a session token for an account, as the server under test verifies them. */
export async function signAccessToken(userId: string, email: string): Promise<string> {
  if (hosted) return await hosted.signAccessToken(userId, email);
  const { signLocalAccessToken } = await import("../scripts/support/local_tokens.ts");
  return await signLocalAccessToken(userId, email);
}

/**
 * Signs claims as the project's Auth would for the server under test: the local secret (HS256),
 * or the hosted project's signing key (ES256, with its issuer unless the claims name one).
 */
export async function signClaims(claims: Record<string, unknown>): Promise<string> {
  if (hosted) return await hosted.signClaims(claims);
  const secret = new TextEncoder().encode(Deno.env.get("JWT_SECRET")!);
  return await new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(secret);
}

/** The project's key for signed-out callers: the local anon JWT, or the hosted publishable key. */
export async function anonKey(): Promise<string> {
  if (hosted) return hosted.publishableKey;
  const { signLocalAnonKey } = await import("../scripts/support/local_tokens.ts");
  return await signLocalAnonKey();
}

/** A test of the in-process server only (its internals, its environment or its processes). */
export function localOnly(name: string, fn: (t: Deno.TestContext) => Promise<void> | void): void {
  Deno.test({ name, fn, ignore: hosted !== null, sanitizeOps: false, sanitizeResources: false });
}

/** Registers a test that shares the long-lived server (so resource sanitizers are off). */
export function test(name: string, fn: (t: Deno.TestContext) => Promise<void> | void): void {
  Deno.test({ name, fn, sanitizeOps: false, sanitizeResources: false });
}

/** A parsed response. */
export interface CallResult<T = unknown> {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any -- tests read arbitrary fields of JSend bodies
  body: any;
  /** The body typed, when the caller knows its shape. */
  typed: T;
}

/** Options of a call. */
export interface CallOptions {
  /** Bearer token (API key, JWT or service secret). */
  token?: string;
  /** The client address the call comes from (default: a fresh random one); see `fetchFrom`. */
  ip?: string;
  headers?: Record<string, string>;
  /** Raw body instead of JSON.stringify(body). */
  raw?: BodyInit;
  method?: string;
}

/** A random client address, so each test has its own per-IP budget; fetch() from one. */
export { fetchFrom, randomIp };

/** POSTs to a function of the server under test over HTTP and parses the JSON answer. */
export async function call<T = unknown>(
  fn: string,
  body: unknown = {},
  options: CallOptions = {},
): Promise<CallResult<T>> {
  return await callAt<T>(server.functionsUrl, fn, body, options);
}

/** POSTs to a function of the server at `functionsUrl` and parses the JSON answer. */
export async function callAt<T = unknown>(
  functionsUrl: string,
  fn: string,
  body: unknown = {},
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...options.headers,
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetchFrom(options.ip ?? randomIp())(`${functionsUrl}/${fn}`, {
    method: options.method ?? "POST",
    headers,
    body: options.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { unparsed: text };
  }
  return { status: res.status, headers: res.headers, body: parsed, typed: parsed as T };
}

/** A local account for a test. */
export interface TestUser {
  user_id: string;
  access_token: string;
  email: string;
}

/** Creates a fresh local account (supporter tier and admin flag as given) with a 1-hour token. */
export async function makeUser(
  options: { tier?: number; admin?: boolean } = {},
): Promise<TestUser> {
  const { upsertDevUser } = await import("../scripts/tools/dev_user.ts");
  const email = `user-${crypto.randomUUID()}@example.test`;
  const user = await upsertDevUser(adminSql, {
    email,
    tier: options.tier ?? 0,
    admin: options.admin ?? false,
  }, signAccessToken);
  return { ...user, email };
}

/** A fresh access token for the same account (its own rate-limit bucket). */
export async function freshToken(user: TestUser): Promise<string> {
  return await signAccessToken(user.user_id, user.email);
}

/** Creates an API client for the user and returns its id and key. */
export async function makeApiKey(user: TestUser): Promise<{ clientId: number; apiKey: string }> {
  const res = await call("create-api-client", { name: "test client" }, {
    token: user.access_token,
  });
  if (res.body?.status !== "success") {
    throw new Error(`create-api-client failed: ${JSON.stringify(res.body)}`);
  }
  return { clientId: res.body.data.id, apiKey: res.body.data.api_key };
}

/** Asserts a JSend fail with the given HTTP status and returns its message. */
export function failMessage(res: CallResult, status = 200): string {
  if (res.status !== status || res.body?.status !== "fail") {
    throw new Error(
      `Expected HTTP ${status} fail, got HTTP ${res.status}: ${JSON.stringify(res.body)}`,
    );
  }
  return String(res.body.data.message);
}

/** Asserts a JSend success (HTTP 200) and returns its data. */
// deno-lint-ignore no-explicit-any -- tests read arbitrary fields of the data
export function successData(res: CallResult): any {
  if (res.status !== 200 || res.body?.status !== "success") {
    throw new Error(`Expected success, got HTTP ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res.body.data;
}
