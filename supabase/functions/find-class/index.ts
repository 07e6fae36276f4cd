import { FindClassBody, FindClassResult } from "@shared/content.ts";
import { findContent } from "../_shared/content/find_content.ts";
import { classTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Finds classes the caller may read",
  auth: ["api_key", "jwt"],
  body: FindClassBody,
  result: FindClassResult,
  run: async ({ body, tx }) => oneOrMany(body.id, await findContent(tx, classTable, body)),
}));
