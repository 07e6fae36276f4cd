import { FindTraitBody, FindTraitResult } from "@shared/content.ts";
import { findContent } from "../_shared/content/find_content.ts";
import { traitTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Finds traits the caller may read",
  auth: ["api_key", "jwt"],
  body: FindTraitBody,
  result: FindTraitResult,
  run: async ({ body, tx }) => oneOrMany(body.id, await findContent(tx, traitTable, body)),
}));
