import { moderationEndpoints } from "@shared/contract/moderation.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { selectContentUpdates } from "../_shared/moderation/select_content_updates.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";

export const handler = endpoint(moderationEndpoints, "find-content-update", {
  run: async ({ body, tx }) => oneOrMany(body.id, await selectContentUpdates(tx, body)),
});
