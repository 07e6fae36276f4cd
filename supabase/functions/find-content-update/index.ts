import { z } from "zod";
import { ContentUpdate, FindContentUpdateBody } from "@shared/content_updates.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { selectContentUpdates } from "../_shared/moderation/select_content_updates.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Finds content update proposals, sorted by id",
  auth: ["api_key", "jwt"],
  body: FindContentUpdateBody,
  result: z.union([ContentUpdate, z.array(ContentUpdate)]).nullable(),
  run: async ({ body, tx }) => oneOrMany(body.id, await selectContentUpdates(tx, body)),
}));
