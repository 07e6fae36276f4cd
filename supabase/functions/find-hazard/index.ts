import { FindHazardBody, FindHazardResult } from "@shared/content.ts";
import { findContent } from "../_shared/content/find_content.ts";
import { hazardTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Finds hazards the caller may read",
  auth: ["api_key", "jwt"],
  body: FindHazardBody,
  result: FindHazardResult,
  run: async ({ body, tx }) => oneOrMany(body.id, await findContent(tx, hazardTable, body)),
}));
