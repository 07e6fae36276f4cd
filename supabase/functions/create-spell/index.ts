import { SaveSpellBody, Spell } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { spellTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a spell, or updates the one named by id (-1 inserts)",
  auth: ["api_key", "jwt"],
  body: SaveSpellBody,
  result: Spell,
  run: async ({ body, tx }) => await saveContent(tx, spellTable, body, -1),
}));
