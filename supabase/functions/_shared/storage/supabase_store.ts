import type { Bytes } from "../base64.ts";
import { Unavailable } from "../envelope.ts";
import type { ObjectName } from "./object_name.ts";

const UPLOAD_TIMEOUT_MS = 15_000;

/**
 * Public files in Supabase Storage buckets (one public bucket per category), written with the
 * service role key over the Storage REST API; the URL is the bucket's public object URL.
 */
export class SupabaseStore {
  readonly kind = "supabase";
  readonly #base: string;
  readonly #key: string;

  constructor(projectUrl: string, serviceRoleKey: string) {
    this.#base = projectUrl.replace(/\/$/, "");
    this.#key = serviceRoleKey;
  }

  async put(name: ObjectName, bytes: Bytes): Promise<string> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}/storage/v1/object/${name.bucket}/${name.path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.#key}`,
          apikey: this.#key,
          "content-type": name.contentType,
          "cache-control": "max-age=31536000",
          // Same name means same bytes, so overwriting is harmless and makes retries idempotent.
          "x-upsert": "true",
        },
        body: bytes,
        signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
      });
    } catch (e) {
      throw new Unavailable(e);
    }
    await res.body?.cancel();
    if (!res.ok) throw new Unavailable(new Error(`Storage upload failed: HTTP ${res.status}`));
    return `${this.#base}/storage/v1/object/public/${name.bucket}/${name.path}`;
  }

  /** One Storage API call per bucket: `DELETE /object/<bucket>` with the paths as `prefixes`. */
  async remove(names: readonly ObjectName[]): Promise<void> {
    const byBucket = Map.groupBy(names, (name) => name.bucket);
    for (const [bucket, inBucket] of byBucket) {
      let res: Response;
      try {
        res = await fetch(`${this.#base}/storage/v1/object/${bucket}`, {
          method: "DELETE",
          headers: {
            authorization: `Bearer ${this.#key}`,
            apikey: this.#key,
            "content-type": "application/json",
          },
          body: JSON.stringify({ prefixes: inBucket.map((name) => name.path) }),
          signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
        });
      } catch (e) {
        throw new Unavailable(e);
      }
      await res.body?.cancel();
      if (!res.ok) throw new Unavailable(new Error(`Storage delete failed: HTTP ${res.status}`));
    }
  }
}
