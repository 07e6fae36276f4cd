import { Hazard, SaveHazardBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { hazardTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a hazard, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveHazardBody,
  result: Hazard,
  run: async ({ body, tx }) => await saveContent(tx, hazardTable, body),
}));
