import { Campaign, CreateCampaignBody } from "@shared/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { saveCampaign } from "../_shared/characters/campaigns.ts";

serve(endpoint({
  summary:
    "Creates a campaign (supporter tier 1 or higher), or with id updates one the caller owns",
  auth: ["api_key", "jwt"],
  body: CreateCampaignBody,
  result: Campaign,
  run: async ({ body, tx }) => await saveCampaign(tx, body),
}));
