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
  run: async ({ body, tx }) => oneOrMany(body.id, await findContent(tx, contentSourceTable, body)),
}));
