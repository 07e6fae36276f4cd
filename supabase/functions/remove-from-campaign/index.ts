import { z } from "zod";
import { RemoveFromCampaignBody } from "@shared/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { Fail, fail } from "../_shared/envelope.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint({
  summary: "The campaign's owner removes a character (and its player) from the campaign",
  auth: ["api_key", "jwt"],
  body: RemoveFromCampaignBody,
  result: z.literal(true),
  run: async ({ body, caller, tx }) => {
    const [campaign] = await tx`
      select id from public.campaign
      where id = ${body.campaign_id} and user_id = (select auth.uid())`;
    if (!campaign) throw fail("Campaign not found");
    const [removed] = await tx<{ user_id: string }[]>`
      update public.character set campaign_id = null
      where id = ${body.character_id} and campaign_id = ${body.campaign_id}
      returning user_id`;
    if (!removed) {
      const [visible] = await tx`select id from public.character where id = ${body.character_id}`;
      if (visible) throw fail("Character not in campaign");
      // Under an API key a character is visible only with a grant for the client.
      if (caller.kind === "user" && caller.via === "api_key") {
        throw new Fail("You do not have access to this character", 403);
      }
      throw fail("Character not found");
    }
    // The player leaves too: an open join grant would let them straight back in.
    await tx`delete from public.campaign_join_grant
             where campaign_id = ${body.campaign_id} and user_id = ${removed.user_id}::uuid`;
    return true as const;
  },
}));
