import { z } from "zod";
import { GmGroupEmptyBody, GmGroupMember } from "@shared/gm_groups.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "Lists the members of the caller's GM group (empty unless the caller is a GAME-MASTER)",
  auth: ["jwt"],
  body: GmGroupEmptyBody,
  result: z.array(GmGroupMember),
  run: async ({ tx }) =>
    await tx<z.input<typeof GmGroupMember>[]>`
      select user_id, display_name, image_url, added_at from private.gm_group_members()`,
}));
