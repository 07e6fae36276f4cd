import { SaveVersatileHeritageBody, VersatileHeritage } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { versatileHeritageTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a versatile heritage, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveVersatileHeritageBody,
  result: VersatileHeritage,
  run: async ({ body, tx }) => await saveContent(tx, versatileHeritageTable, body),
}));
