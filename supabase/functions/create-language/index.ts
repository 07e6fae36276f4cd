import { Language, SaveLanguageBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { languageTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a language, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveLanguageBody,
  result: Language,
  run: async ({ body, tx }) => await saveContent(tx, languageTable, body),
}));
