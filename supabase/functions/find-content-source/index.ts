import { findAllContent, findContent } from "../_shared/content/find_content.ts";
import { contentTables } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

const table = contentTables["content-source"];

serve(endpoint("find-content-source", {
  run: async ({ body, tx }) => {
    // As the reference answers it: an external id names one source (or none).
    if (body.external_id !== undefined) return (await findContent(tx, table, body))[0] ?? null;
    if (body.id !== undefined) return oneOrMany(body.id, await findContent(tx, table, body));
    return await findAllContent(tx, table, body);
  },
}));
