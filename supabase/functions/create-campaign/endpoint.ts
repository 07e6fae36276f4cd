import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { saveCampaign } from "../_shared/characters/campaigns.ts";

export const handler = endpoint(campaignsEndpoints, "create-campaign", {
  run: async ({ body, tx }) => await saveCampaign(tx, body),
});
