import { FindCreatureBody, FindCreatureResult } from "@shared/content.ts";
import { findContent } from "../_shared/content/find_content.ts";
import { creatureTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Finds creatures the caller may read",
  auth: ["api_key", "jwt"],
  body: FindCreatureBody,
  result: FindCreatureResult,
  run: async ({ body, tx }) => oneOrMany(body.id, await findContent(tx, creatureTable, body)),
}));
