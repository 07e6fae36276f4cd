import { Ancestry, SaveAncestryBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { ancestryTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a ancestry, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveAncestryBody,
  result: Ancestry,
  run: async ({ body, tx }) => await saveContent(tx, ancestryTable, body),
}));
