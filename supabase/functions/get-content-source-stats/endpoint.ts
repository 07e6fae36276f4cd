import { contentEndpoints } from "@shared/contract/content.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";

export const handler = endpoint(contentEndpoints, "get-content-source-stats", {
  run: async ({ body, tx }) => {
    // Every column the caller may read (the access key is not among them), under the read policy.
    const selected = tx<Record<string, unknown>[]>`
      select id, name, url, created_at, updated_at, external_id, description, operations, user_id,
             contact_info, require_key, is_published, required_content_sources, "group",
             artwork_url, meta_data
      from public.content_source where id = ${body.content_source_id}`;
    // Counted whether or not the source is visible; not shown unless it is.
    const counted = tx<{ count: number }[]>`
      select private.content_source_subscriber_count(${body.content_source_id})::int as count`;
    const [source] = await selected;
    if (!source) throw fail("Content source not found");
    return { source, count: (await counted)[0]?.count ?? 0 };
  },
});
