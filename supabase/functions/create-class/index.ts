import { Class, SaveClassBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { classTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a class, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveClassBody,
  result: Class,
  run: async ({ body, tx }) => await saveContent(tx, classTable, body),
}));
