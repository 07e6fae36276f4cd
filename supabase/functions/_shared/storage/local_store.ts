import type { Bytes } from "../base64.ts";
import { env } from "../env.ts";
import type { ObjectName } from "./object_name.ts";

/** The folder local public files live in: STORAGE_DIR, else `<DATA_DIR>/storage`. */
export function localStorageRoot(): string {
  return env.STORAGE_DIR ?? `${env.DATA_DIR}/storage`;
}

/** The file of an object in the local folder; the name's shape keeps it inside the folder. */
export function localObjectPath(name: ObjectName): string {
  return `${localStorageRoot()}/${name.bucket}/${name.path}`;
}

/**
 * Public files in a local folder, served by the local server at the URL shape Supabase Storage
 * uses (`/storage/v1/object/public/<bucket>/<path>`).
 */
export class LocalStore {
  readonly kind = "local";

  async put(name: ObjectName, bytes: Bytes): Promise<string> {
    const file = localObjectPath(name);
    const exists = await Deno.stat(file).then(() => true, () => false);
    if (!exists) {
      const dir = file.slice(0, file.lastIndexOf("/"));
      await Deno.mkdir(dir, { recursive: true });
      // Written beside and renamed, so a reader never sees half a file.
      const partial = `${file}.${crypto.randomUUID()}.partial`;
      await Deno.writeFile(partial, bytes);
      await Deno.rename(partial, file);
    }
    // The local server sets APP_URL once it listens, after this module has loaded.
    const origin = env.APP_URL ?? Deno.env.get("APP_URL") ?? "http://127.0.0.1:54321";
    return `${origin.replace(/\/$/, "")}/storage/v1/object/public/${name.bucket}/${name.path}`;
  }

  async remove(names: readonly ObjectName[]): Promise<void> {
    for (const name of names) {
      await Deno.remove(localObjectPath(name)).catch((e) => {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      });
    }
  }
}
