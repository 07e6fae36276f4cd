import { endpoint } from "../_shared/endpoint.ts";
import { Fail, fail } from "../_shared/envelope.ts";
import { serve } from "../_shared/serve.ts";

serve(endpoint("remove-from-campaign", {
  run: async ({ body, caller, tx }) => {
    const [campaign] = await tx`
      select id from public.campaign
      where id = ${body.campaign_id} and user_id = (select auth.uid())`;
    if (!campaign) throw fail("Campaign not found");
    if (caller.kind === "user" && caller.via === "api_key") {
      // Under an API key a character is visible only with a grant for the client.
      const [visible] = await tx`select 1 from public.character where id = ${body.character_id}`;
      if (!visible) throw new Fail("You do not have access to this character", 403);
    }
    // A character that has left the campaign is no longer the owner's to read, so the function
    // answers `Character not in campaign` for it (and for an id that matches nothing), rather than
    // `Character not found`, and never tells the owner whether a character exists elsewhere.
    await tx`select private.remove_from_campaign(${body.character_id}, ${body.campaign_id})`;
    return true as const;
  },
}));
