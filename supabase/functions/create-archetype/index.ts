import { Archetype, SaveArchetypeBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { archetypeTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a archetype, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveArchetypeBody,
  result: Archetype,
  run: async ({ body, tx }) => await saveContent(tx, archetypeTable, body),
}));
