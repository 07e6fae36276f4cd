import { ContentSource, SaveContentSourceBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { contentSourceTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a content source, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveContentSourceBody,
  result: ContentSource,
  run: async ({ body, tx }) => await saveContent(tx, contentSourceTable, body),
}));
