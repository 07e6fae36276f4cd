import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { actsForUser } from "../_shared/auth/identity.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { findCampaigns } from "../_shared/characters/campaigns.ts";

export const handler = endpoint(campaignsEndpoints, "find-campaign", {
  run: async ({ body, caller, tx }) => await findCampaigns(tx, body, actsForUser(caller)),
});
