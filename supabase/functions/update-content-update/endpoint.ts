import { moderationEndpoints } from "@shared/contract/moderation.ts";
import { endpoint } from "../_shared/endpoint.ts";

export const handler = endpoint(moderationEndpoints, "update-content-update", {
  run: async ({ body, tx }) => {
    // Runs as service_role; every write (claim, apply, votes, paragon) is in this one function.
    await tx`
      select private.moderate_content_update(
        ${body.discord_msg_id}, ${body.discord_user_id}, ${body.discord_user_name}, ${body.state})`;
    return true as const;
  },
});
