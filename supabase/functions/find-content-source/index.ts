import { findContent } from "../_shared/content/find_content.ts";
import { contentTables } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint("find-content-source", {
  run: async ({ body, tx }) => {
    const rows = await findContent(tx, contentTables["content-source"], body);
    // As the reference answers it: an external id names one source (or none).
    return body.external_id !== undefined ? rows[0] ?? null : oneOrMany(body.id, rows);
  },
}));
