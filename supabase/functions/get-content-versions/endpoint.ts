import { contentEndpoints } from "@shared/contract/content.ts";
import { ContentVersion } from "@shared/freshness.ts";
import { z } from "zod";
import { endpoint } from "../_shared/endpoint.ts";

export const handler = endpoint(contentEndpoints, "get-content-versions", {
  run: async ({ body, tx }) =>
    // Row-level policies leave out the sources the caller may not read.
    await tx<z.input<typeof ContentVersion>[]>`
      select id, updated_at from public.content_source
      where id = any(${body.ids}::bigint[]) order by id`,
});
