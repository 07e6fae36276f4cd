import { z } from "zod";
import { UpdateContentUpdateBody } from "@shared/content_updates.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "The moderation bot approves, rejects or votes on a proposal (service secret only)",
  // Only the service secret: the pipeline refuses JWTs and API keys with 401 Invalid auth token.
  auth: ["service"],
  body: UpdateContentUpdateBody,
  result: z.literal(true),
  run: async ({ body, tx }) => {
    // Runs as service_role; every write (claim, apply, votes, paragon) is in this one function.
    await tx`
      select private.moderate_content_update(
        ${body.discord_msg_id}, ${body.discord_user_id}, ${body.discord_user_name}, ${body.state})`;
    return true as const;
  },
}));
