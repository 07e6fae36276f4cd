import { z } from "zod";
import { ConfigurationError, databaseSetting } from "./configuration.ts";

export { ConfigurationError };

const flag = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

/** A variable holding JSON of the given shape. */
function jsonText<T extends z.ZodType>(shape: T) {
  return z.string().transform((text, context): z.infer<T> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      context.addIssue({ code: "custom", message: "is not valid JSON" });
      return z.NEVER;
    }
    const parsed = shape.safeParse(value);
    if (parsed.success) return parsed.data;
    context.addIssue({ code: "custom", message: `is not ${shape.description}` });
    return z.NEVER;
  });
}

const KeysByName = z.record(z.string(), z.string().min(1))
  .describe('a JSON object of named keys, e.g. {"default":"sb_publishable_..."}');
const Jwk = z.looseObject({ kty: z.string() });
/** The platform is reported to give a bare array of keys; the CLI gives a JWKS document. */
const Jwks = z.union([
  z.looseObject({ keys: z.array(Jwk) }),
  z.array(Jwk).transform((keys) => ({ keys })),
]).describe('a JWKS document ({"keys":[...]}) or an array of keys');

const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  /** Provided by the hosted platform to every edge function. */
  SUPABASE_DB_URL: z.string().min(1).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * Named prepared statements; `false` behind a transaction-mode pooler that cannot keep them
   * (PgBouncer before 1.21, or without `max_prepared_statements`).
   */
  DATABASE_PREPARE: flag.default(true),
  /** The password of the role requests connect as (see `requestDatabaseUrl`); none when unset. */
  API_AUTHENTICATOR_PASSWORD: z.string().min(1).optional(),
  /**
   * The legacy shared secret that verifies HS256 user tokens (Supabase calls it the JWT secret;
   * self-hosted Supabase names it JWT_SECRET). New hosted projects sign with asymmetric keys and
   * may have none: then tokens verify against SUPABASE_JWKS or the project's JWKS endpoint.
   */
  JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** The project's URL; provided by the platform. Names the token issuer and the JWKS endpoint. */
  SUPABASE_URL: z.url().optional(),
  /** The project's public signing keys as a JWKS document; provided by the platform. */
  SUPABASE_JWKS: jsonText(Jwks).optional(),
  /** The project's publishable keys by name (`{"default":"sb_publishable_..."}`); platform-provided. */
  SUPABASE_PUBLISHABLE_KEYS: jsonText(KeysByName).optional(),
  /** The project's secret keys by name; platform-provided. Used only to write to Storage. */
  SUPABASE_SECRET_KEYS: jsonText(KeysByName).optional(),
  UPSTASH_REDIS_REST_URL: z.url().optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  RATE_LIMIT_PREFIX: z.string().min(1).default("rl"),
  CONTENT_UPDATE_SECRET: z.string().min(16).optional(),
  /**
   * Signs new API keys so that they are recognised without the database (auth/signed_api_key.ts);
   * unset, keys are random and always looked up. Keep it: keys issued under it stop working when
   * it changes.
   */
  API_KEY_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  CONTENT_UPDATE_WEBHOOK_URL: z.url().optional(),
  /**
   * Where the client's address comes from (client_address.ts): unset or `false`, the connection's
   * peer; `true`, the last X-Forwarded-For entry, which a proxy of your own appended; a header's
   * name, the header a proxy in front overwrites (`cf-connecting-ip` on the hosted platform).
   */
  TRUST_PROXY: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, {
    error: "must be true, false or the name of a header your proxy writes the address to",
  }).transform((v): string | false => {
    const name = v.toLowerCase();
    if (name === "false" || name === "0") return false;
    return name === "true" || name === "1" ? "x-forwarded-for" : name;
  }).default(false),
  APP_URL: z.url().optional(),
  /** Where public files go: Supabase Storage, or a local folder (default: supabase when hosted). */
  STORAGE_BACKEND: z.enum(["supabase", "local"]).optional(),
  /** The local storage folder (default: `<DATA_DIR>/storage`). */
  STORAGE_DIR: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  /** The legacy service role key; platform-provided. Used only to write to Storage. */
  SUPABASE_SERVICE_ROLE_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["silent", "info"]).default("info"),
  /**
   * Local development only: mounts the sign-in stand-in and accepts the published example secrets.
   * `deno task start` turns it on for the embedded database; never set it on a reachable server.
   */
  LOCAL_DEVELOPMENT: flag.default(false),
  /** An OpenAI-compatible API (ending in `/v1`) for open-ai-request; unset, the endpoint refuses. */
  OPENAI_BASE_URL: z.url().optional(),
  /** The bearer for OPENAI_BASE_URL; never logged or returned. */
  OPENAI_API_KEY: z.string().min(1).optional(),
  /** The models a caller may name, comma-separated; the first is used when none is named. */
  OPENAI_MODELS: z.string().min(1).default("gpt-4o-mini,gpt-4o"),
});

/**
 * The secrets published in `.env.example`. Anyone can sign tokens with them, so outside local
 * development a start that would use one is refused.
 */
export const PUBLISHED_EXAMPLE_SECRETS: Readonly<Record<string, string>> = {
  JWT_SECRET: "local-development-jwt-secret-change-me-0123456789",
  CONTENT_UPDATE_SECRET: "local-moderation-secret-change-me",
  API_KEY_SECRET: "local-api-key-secret-change-me-0123456789",
};

/** Every variable a deployment may set (the local server's own are in scripts/server/env_file.ts). */
export const CONFIGURATION_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

/** The validated environment of a function, read once at start-up. */
export type Env = z.infer<typeof EnvSchema>;

/** Validates a set of variables (the process environment by default). */
export function readEnv(variables: Record<string, string> = Deno.env.toObject()): Env {
  const parsed = EnvSchema.safeParse(variables);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`);
    throw new ConfigurationError(`Invalid environment: ${problems.join("; ")}`);
  }
  const data = parsed.data;
  if (!data.JWT_SECRET && !data.SUPABASE_JWKS && !data.SUPABASE_URL) {
    throw new ConfigurationError(
      "Invalid environment: no way to verify user tokens: the platform provides SUPABASE_URL " +
        "(and SUPABASE_JWKS); elsewhere set SUPABASE_URL to the project's URL, or JWT_SECRET to " +
        "its legacy JWT secret",
    );
  }
  databaseSetting(data); // refused here, at start, rather than at the first request
  if (!data.UPSTASH_REDIS_REST_URL !== !data.UPSTASH_REDIS_REST_TOKEN) {
    throw new ConfigurationError(
      "Invalid environment: UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN go together: set " +
        "both to count rate limits in Upstash, or neither to count them in the database",
    );
  }
  const published = Object.entries(PUBLISHED_EXAMPLE_SECRETS)
    .filter(([name, value]) => (parsed.data as Record<string, unknown>)[name] === value)
    .map(([name]) => name);
  if (published.length > 0 && !parsed.data.LOCAL_DEVELOPMENT) {
    throw new ConfigurationError(
      `Invalid environment: ${published.join(", ")} is the published example value; set the ` +
        "project's own secret (example values are accepted only with LOCAL_DEVELOPMENT=1)",
    );
  }
  return parsed.data;
}

/** The environment, validated when this module loads so a bad deploy fails at start-up. */
export const env: Env = readEnvAtStart();

function readEnvAtStart(): Env {
  try {
    return readEnv();
  } catch (e) {
    if (!(e instanceof ConfigurationError)) throw e;
    // Uncaught, it would print where it was thrown too, which tells a deployer nothing.
    console.error(`${e.name}: ${e.message}`);
    Deno.exit(1);
  }
}

/**
 * The database owner's connection string: ours locally, the platform's when hosted. It runs the
 * migrations and local tools; requests never use it (see `requestDatabaseUrl`).
 */
export function databaseUrl(): string {
  const setting = databaseSetting(env);
  if (setting) return setting.url;
  throw new ConfigurationError(
    "Invalid environment: no database: set DATABASE_URL (SUPABASE_DB_URL when hosted)",
  );
}

/** The login role requests connect as: only a member of the request roles, owning nothing. */
export const REQUEST_LOGIN_ROLE = "api_authenticator";

/**
 * Where requests connect: as `api_authenticator`, at the owner's address (its user name replaced,
 * a hosted pooler's `.<project-ref>` suffix kept) with API_AUTHENTICATOR_PASSWORD. Every request
 * transaction then switches to its request role, as PostgREST's `authenticator` does.
 */
export function requestDatabaseUrl(): string {
  const url = new URL(databaseUrl());
  const tenant = /\.[^.]+$/.exec(decodeURIComponent(url.username))?.[0] ?? "";
  url.username = REQUEST_LOGIN_ROLE + tenant;
  url.password = env.API_AUTHENTICATOR_PASSWORD ?? "";
  return url.href;
}
