import { FindAbilityBlockBody, FindAbilityBlockResult } from "@shared/content.ts";
import { findContent } from "../_shared/content/find_content.ts";
import { abilityBlockTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Finds ability blocks the caller may read",
  auth: ["api_key", "jwt"],
  body: FindAbilityBlockBody,
  result: FindAbilityBlockResult,
  run: async ({ body, tx }) => oneOrMany(body.id, await findContent(tx, abilityBlockTable, body)),
}));
