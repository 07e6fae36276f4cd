import { Background, SaveBackgroundBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { backgroundTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a background, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveBackgroundBody,
  result: Background,
  run: async ({ body, tx }) => await saveContent(tx, backgroundTable, body),
}));
