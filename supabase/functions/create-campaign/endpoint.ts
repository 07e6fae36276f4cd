import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { saveCampaign } from "../_shared/characters/campaigns.ts";

export const handler = endpoint(campaignsEndpoints, "create-campaign", {
  // The write with its join key (and, for an update, the ownership check) in one round trip.
  oneRoundTrip: () => true,
  run: async ({ body, tx }) => await saveCampaign(tx, body),
});
