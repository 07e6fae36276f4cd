import { z } from "zod";

const flag = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

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
  SUPABASE_JWT_SECRET: z.string().min(32, "SUPABASE_JWT_SECRET must be at least 32 characters"),
  SUPABASE_URL: z.url().optional(),
  UPSTASH_REDIS_REST_URL: z.url().optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  REDIS_URL: z.string().regex(/^redis:\/\//, "REDIS_URL must start with redis://").optional(),
  RATE_LIMIT_PREFIX: z.string().min(1).default("rl"),
  CONTENT_UPDATE_SECRET: z.string().min(16).optional(),
  CONTENT_UPDATE_WEBHOOK_URL: z.url().optional(),
  TRUST_PROXY: flag.default(false),
  APP_URL: z.url().optional(),
  /** Where public files go: Supabase Storage, or a local folder (default: supabase when hosted). */
  STORAGE_BACKEND: z.enum(["supabase", "local"]).optional(),
  /** The local storage folder (default: `<DATA_DIR>/storage`). */
  STORAGE_DIR: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  /** Provided by the hosted platform; used only to write public files to Supabase Storage. */
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
  SUPABASE_JWT_SECRET: "local-development-jwt-secret-change-me-0123456789",
  CONTENT_UPDATE_SECRET: "local-moderation-secret-change-me",
};

/** The validated environment of a function, read once at start-up. */
export type Env = z.infer<typeof EnvSchema>;

function readEnv(): Env {
  const parsed = EnvSchema.safeParse(Deno.env.toObject());
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment: ${problems.join("; ")}`);
  }
  const published = Object.entries(PUBLISHED_EXAMPLE_SECRETS)
    .filter(([name, value]) => (parsed.data as Record<string, unknown>)[name] === value)
    .map(([name]) => name);
  if (published.length > 0 && !parsed.data.LOCAL_DEVELOPMENT) {
    throw new Error(
      `Invalid environment: ${published.join(", ")} is the published example value; set the ` +
        "project's own secret (example values are accepted only with LOCAL_DEVELOPMENT=1)",
    );
  }
  return parsed.data;
}

/** The environment, validated when this module loads so a bad deploy fails at start-up. */
export const env: Env = readEnv();

/** The Postgres connection string: ours locally, the platform's when hosted. */
export function databaseUrl(): string {
  const url = env.DATABASE_URL ?? env.SUPABASE_DB_URL;
  if (!url) throw new Error("Invalid environment: DATABASE_URL or SUPABASE_DB_URL is required");
  return url;
}
