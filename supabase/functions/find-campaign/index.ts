import { z } from "zod";
import { Campaign, FindCampaignBody } from "@shared/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { findCampaigns } from "../_shared/characters/campaigns.ts";

serve(endpoint({
  summary: "Finds campaigns by id, owner or join key; a join-key lookup lets the caller join",
  auth: ["api_key", "jwt", "none"],
  body: FindCampaignBody,
  result: z.array(Campaign),
  run: async ({ body, caller, tx }) => await findCampaigns(tx, body, caller.kind === "user"),
}));
