import { AbilityBlock, SaveAbilityBlockBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { abilityBlockTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a ability block, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveAbilityBlockBody,
  result: AbilityBlock,
  run: async ({ body, tx }) => await saveContent(tx, abilityBlockTable, body),
}));
