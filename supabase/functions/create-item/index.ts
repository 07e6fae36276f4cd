import { Item, SaveItemBody } from "@shared/content.ts";
import { saveContent } from "../_shared/content/save_content.ts";
import { itemTable } from "../_shared/content/tables.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Creates a item, or updates the one named by id",
  auth: ["api_key", "jwt"],
  body: SaveItemBody,
  result: Item,
  run: async ({ body, tx }) => await saveContent(tx, itemTable, body),
}));
