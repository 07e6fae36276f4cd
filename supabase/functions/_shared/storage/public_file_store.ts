import type { Bytes } from "../base64.ts";
import { env } from "../env.ts";
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

function chooseStore(): PublicFileStore {
  const hosted = env.SUPABASE_URL !== undefined && env.SUPABASE_SERVICE_ROLE_KEY !== undefined;
  const kind = env.STORAGE_BACKEND ?? (hosted ? "supabase" : "local");
  if (kind === "local") return new LocalStore();
  if (!env.SUPABASE_URL || !env.SUPABASE_SERVICE_ROLE_KEY) {
    throw new Error(
      "Invalid environment: STORAGE_BACKEND=supabase needs SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY",
    );
  }
  return new SupabaseStore(env.SUPABASE_URL, env.SUPABASE_SERVICE_ROLE_KEY);
}

/** The store of this deployment: Supabase Storage when hosted, a local folder otherwise. */
export const publicFileStore: PublicFileStore = chooseStore();
