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
    const [character] = await tx<{ campaign_id: number | null }[]>`
      select campaign_id from public.character where id = ${body.character_id}`;
    if (!character) {
      // Under an API key a character is visible only with a grant for the client.
      if (caller.kind === "user" && caller.via === "api_key") {
        throw new Fail("You do not have access to this character", 403);
      }
      throw fail("Character not found");
    }
    if (character.campaign_id !== body.campaign_id) throw fail("Character not in campaign");
    await tx`select private.remove_from_campaign(${body.character_id}, ${body.campaign_id})`;
    return true as const;
  },
}));
