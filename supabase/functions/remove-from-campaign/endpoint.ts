import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";

export const handler = endpoint(campaignsEndpoints, "remove-from-campaign", {
  run: async ({ body, tx }) => {
    // The function refuses a campaign the caller does not own, and an API key without a grant on
    // the character (403). A character that has left the campaign is no longer the owner's to
    // read, so it answers `Character not in campaign` for it (and for an id that matches nothing),
    // rather than `Character not found`, and never tells the owner whether a character exists
    // elsewhere.
    await tx`select private.remove_from_campaign(${body.character_id}, ${body.campaign_id})`;
    return true as const;
  },
});
