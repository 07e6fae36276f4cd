import { ClassArchetype, SaveClassArchetypeBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { classArchetypeTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a class archetype, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveClassArchetypeBody,
  result: ClassArchetype,
  run: async ({ body, tx }) => await saveContent(tx, classArchetypeTable, body),
}));
