import { z } from "zod";
import { GmAddToGroupBody } from "@shared/gm_groups.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary:
    "Joins a GAME-MASTER supporter's group with its access code (replacing any earlier group)",
  auth: ["jwt"],
  body: GmAddToGroupBody,
  result: z.literal("Added to group"),
  run: async ({ body, tx }) => {
    const [row] = await tx<{ joined: boolean }[]>`
      select private.join_gm_group(${body.gm_user_id}::uuid, ${body.access_code}) as joined`;
    // One message for every reason, so the endpoint does not confirm which GMs or codes exist.
    if (!row?.joined) throw fail("Failed to add to group");
    return "Added to group" as const;
  },
}));
