import { Creature, SaveCreatureBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { creatureTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a creature, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveCreatureBody,
  result: Creature,
  run: async ({ body, tx }) => await saveContent(tx, creatureTable, body),
}));
