import postgres from "postgres";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { migrate } from "../server/migrate.ts";
import { runtimeDeno, runtimeDenoEnv } from "../support/deno_runtime.ts";
import { randomSecret } from "../support/run_secrets.ts";
import { PgBouncer } from "../support/pgbouncer.ts";
import { PostgresCluster } from "../support/postgres_cluster.ts";
import { RoundTripProxy } from "../support/round_trip_proxy.ts";
import { UpstashStandIn } from "../support/upstash_stand_in.ts";
import { HostedGateway } from "./gateway.ts";

const root = new URL("../../", import.meta.url);

/** A running emulation of a hosted project: what a test or a benchmark needs to reach it. */
export interface HostedEmulation {
  /** `<gateway>/functions/v1`, as a deployed project's functions URL. */
  functionsUrl: string;
  /** The project URL (SUPABASE_URL of the functions). */
  projectUrl: string;
  /** The database as the project's `postgres` role, directly (not through the pooler). */
  ownerUrl: string;
  /** The project's publishable key (signed-out callers). */
  publishableKey: string;
  /** The moderation bot's secret (CONTENT_UPDATE_SECRET). */
  moderationSecret: string;
  /** Signs a user session token as the project's Auth does (ES256, `kid`, its issuer). */
  signAccessToken(userId: string, email: string, lifetimeSeconds?: number): Promise<string>;
  /**
   * A new user as Auth signs one up (a row of auth.users), with a session token; with
   * `supporterTier`, as if the user had then become a supporter.
   */
  signUp(email: string, supporterTier?: number): Promise<{ userId: string; token: string }>;
  /** Signs any claims with the project's key (ES256), `iss` added unless given. */
  signClaims(claims: Record<string, unknown>): Promise<string>;
  /** The legacy HS256 secret (JWT_SECRET), for projects that still have one. */
  legacySecret: string;
  gateway: HostedGateway;
  /** Counts the round trips between the functions and the pooler (and adds the latency asked). */
  database: RoundTripProxy;
  /** The limiter's Upstash store (a stand-in in front of Redis), which a test may take down. */
  limiterStore: UpstashStandIn;
  /** Sets the latency added per round trip to the pooler and per limiter answer, from now on. */
  setLatency(latency: { databaseMs: number; limiterMs: number }): void;
  close(): Promise<void>;
}

/**
 * Starts the hosted shape on this machine: a Postgres cluster whose roles, schemas and default
 * privileges are the platform's (scripts/hosted/platform.sql, bootstrap superuser
 * `supabase_admin`), the migrations and seed applied by the non-superuser `postgres` as `supabase
 * db push` applies them, the README's password step for api_authenticator, PgBouncer in
 * transaction mode in front (the pooler), an Upstash-format limiter store over `redisUrl`, and the
 * gateway that starts each function on the platform's Deno with only the platform's environment
 * and the secrets the README tells a deployer to set.
 */
export async function startHostedEmulation(options: {
  redisUrl: string;
  verbose?: boolean;
  /** Added per round trip to the pooler, and to each limiter answer, as across a network. */
  latency?: { databaseMs: number; limiterMs: number };
}): Promise<HostedEmulation> {
  const denoBin = await runtimeDeno();
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const cluster = await PostgresCluster.create("supabase_admin");
    // A process that ends without closing the emulation (the test suite) stops its cluster too.
    const stopOnExit = () => cluster.destroySync();
    globalThis.addEventListener("unload", stopOnExit);
    cleanups.push(async () => {
      globalThis.removeEventListener("unload", stopOnExit);
      await cluster.destroy();
    });
    const ownerPassword = randomSecret();
    const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(
        await Deno.readTextFile(new URL("scripts/hosted/platform.sql", root)),
      );
      await admin.unsafe(`alter role postgres with password '${ownerPassword}'`);
    } finally {
      await admin.end();
    }
    const ownerUrl = `postgres://postgres:${ownerPassword}@127.0.0.1:${cluster.port}/postgres`;

    // `supabase db push` (and its seed), as the project's postgres role, then the README's step.
    const requestPassword = randomSecret();
    const owner = postgres(ownerUrl, { max: 1, onnotice: () => {} });
    try {
      await migrate(owner, { seed: true });
      await owner.unsafe(`alter role api_authenticator with password '${requestPassword}'`);
    } finally {
      await owner.end();
    }

    const pooler = await PgBouncer.start({
      serverPort: cluster.port,
      users: [
        { name: "postgres", password: ownerPassword },
        { name: "api_authenticator", password: requestPassword },
      ],
    });
    cleanups.push(() => pooler.stop());

    const limiterStore = UpstashStandIn.start(options.redisUrl);
    limiterStore.latencyMs = options.latency?.limiterMs ?? 0;
    cleanups.push(() => limiterStore.close());
    const database = RoundTripProxy.start(
      { hostname: "127.0.0.1", port: pooler.port },
      options.latency?.databaseMs ?? 0,
    );
    cleanups.push(() => Promise.resolve(database.close()));

    const keys = await projectKeys();
    const publishableKey = `sb_publishable_${randomSecret().slice(0, 22)}`;
    const secretKey = `sb_secret_${randomSecret().slice(0, 22)}`;
    const moderationSecret = randomSecret();
    const legacySecret = randomSecret();
    const apiKeySecret = randomSecret();
    // The owner's own connection, for what the emulation reads and writes itself (Storage's
    // buckets, Auth's users).
    const projectOwner = postgres(ownerUrl, { max: 1, onnotice: () => {} });
    cleanups.push(() => projectOwner.end());

    let gateway: HostedGateway | null = null;
    const projectUrl = () => gateway!.origin;
    const platformEnv = (): Record<string, string> => ({
      // What the platform gives every function.
      SUPABASE_URL: projectUrl(),
      SUPABASE_DB_URL: ownerUrl,
      SUPABASE_JWKS: JSON.stringify({ keys: [keys.publicJwk] }),
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: publishableKey }),
      SUPABASE_SECRET_KEYS: JSON.stringify({ default: secretKey }),
      // The secrets the README's deploy steps set.
      DATABASE_URL: `postgres://postgres:${ownerPassword}@127.0.0.1:${database.port}/postgres`,
      DATABASE_PREPARE: "false",
      API_AUTHENTICATOR_PASSWORD: requestPassword,
      CONTENT_UPDATE_SECRET: moderationSecret,
      API_KEY_SECRET: apiKeySecret,
      UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${limiterStore.port}`,
      UPSTASH_REDIS_REST_TOKEN: limiterStore.token,
      TRUST_PROXY: "cf-connecting-ip",
      JWT_SECRET: legacySecret,
    });
    gateway = new HostedGateway({
      denoBin,
      get functionEnv() {
        return { ...platformEnv(), ...plumbing() };
      },
      jwks: { keys: [keys.publicJwk] },
      storageKeys: [secretKey],
      bucketIsPublic: async (bucket) =>
        (await projectOwner`select 1 from storage.buckets where id = ${bucket} and public`).length >
          0,
      verbose: options.verbose ?? false,
    });
    await gateway.start();
    cleanups.push(() => gateway!.close());

    const issuer = `${gateway.origin}/auth/v1`;
    // As the project's Auth signs: ES256 with the key's id, its issuer unless the claims name one.
    const signClaims = (claims: Record<string, unknown>) =>
      new SignJWT({ iss: issuer, ...claims })
        .setProtectedHeader({ alg: "ES256", typ: "JWT", kid: keys.publicJwk.kid! })
        .sign(keys.privateKey);
    const signAccessToken = (userId: string, email: string, lifetimeSeconds = 3600) =>
      signClaims(sessionClaims(userId, email, lifetimeSeconds));
    return {
      functionsUrl: `${gateway.origin}/functions/v1`,
      projectUrl: gateway.origin,
      ownerUrl,
      publishableKey,
      moderationSecret,
      gateway,
      database,
      limiterStore,
      setLatency: ({ databaseMs, limiterMs }) => {
        database.delayMs = databaseMs;
        limiterStore.latencyMs = limiterMs;
      },
      signUp: async (email, supporterTier = 0) => {
        const [user] = await projectOwner<{ id: string }[]>`
          insert into auth.users (id, email) values (gen_random_uuid(), ${email})
          returning id::text as id`;
        await projectOwner`update public.public_user set supporter_tier = ${supporterTier}
          where user_id = ${user!.id}`;
        return { userId: user!.id, token: await signAccessToken(user!.id, email) };
      },
      signAccessToken,
      signClaims,
      legacySecret,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** What the emulation's processes need to run at all; none of it is the function's concern. */
export function plumbing(): Record<string, string> {
  const home = Deno.env.get("HOME") ?? "/root";
  return {
    HOME: home,
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${home}/.cache/deno`,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    ...runtimeDenoEnv(),
  };
}

/** The claims of a user session as Auth issues them (the issuer is added when signed). */
function sessionClaims(userId: string, email: string, lifetime: number): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: userId,
    aud: "authenticated",
    role: "authenticated",
    email,
    session_id: crypto.randomUUID(),
    is_anonymous: false,
    iat: now,
    exp: now + lifetime,
  };
}

/** The project's asymmetric signing key, as Auth keeps one (ES256, with a key id). */
async function projectKeys(): Promise<{ privateKey: CryptoKey; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: crypto.randomUUID(), alg: "ES256" };
  return { privateKey, publicJwk: { ...publicJwk, use: "sig", key_ops: ["verify"] } };
}
