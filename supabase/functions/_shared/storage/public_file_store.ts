import type { Bytes } from "../base64.ts";
import { ConfigurationError, env } from "../env.ts";
import { LocalStore } from "./local_store.ts";
import type { ObjectName } from "./object_name.ts";
import { SupabaseStore } from "./supabase_store.ts";

/** Where public files are kept: any backend that stores bytes under a name and gives a URL. */
export interface PublicFileStore {
  /** Which backend this is, for logs and docs. */
  readonly kind: "supabase" | "local";
  /** Stores the bytes under the name (idempotent) and returns the URL anyone can fetch them at. */
  put(name: ObjectName, bytes: Bytes): Promise<string>;
  /** Deletes the named files; one already gone is not an error. */
  remove(names: readonly ObjectName[]): Promise<void>;
}

/**
 * The key Storage accepts for writes: the project's secret key (new projects have only these),
 * else the legacy service role key.
 */
function storageKey(): string | undefined {
  const secretKeys = env.SUPABASE_SECRET_KEYS ?? {};
  return secretKeys.default ?? Object.values(secretKeys)[0] ?? env.SUPABASE_SERVICE_ROLE_KEY;
}

function chooseStore(): PublicFileStore {
  const key = storageKey();
  const hosted = env.SUPABASE_URL !== undefined && key !== undefined;
  const kind = env.STORAGE_BACKEND ?? (hosted ? "supabase" : "local");
  if (kind === "local") return new LocalStore();
  if (!env.SUPABASE_URL || !key) {
    throw new ConfigurationError(
      "Invalid environment: STORAGE_BACKEND=supabase needs SUPABASE_URL and a secret key " +
        "(SUPABASE_SECRET_KEYS or SUPABASE_SERVICE_ROLE_KEY, both provided by the platform)",
    );
  }
  return new SupabaseStore(env.SUPABASE_URL, key);
}

/** The store of this deployment: Supabase Storage when hosted, a local folder otherwise. */
export const publicFileStore: PublicFileStore = chooseStore();
