import { SaveTraitBody, Trait } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { traitTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a trait, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveTraitBody,
  result: Trait,
  run: async ({ body, tx }) => await saveContent(tx, traitTable, body),
}));
