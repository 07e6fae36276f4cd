import { FindContentSourceBody, FindContentSourceResult } from "@shared/content.ts";
import { findContent } from "../_shared/content/find_content.ts";
import { contentSourceTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Finds content sources the caller may read",
  auth: ["api_key", "jwt"],
  body: FindContentSourceBody,
  result: FindContentSourceResult,
  run: async ({ body, tx }) => {
    const rows = await findContent(tx, contentSourceTable, body);
    // As the reference answers it: an external id names one source (or none).
    return body.external_id !== undefined ? rows[0] ?? null : oneOrMany(body.id, rows);
  },
}));
