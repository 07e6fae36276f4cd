import { ResetCampaignKeyBody, ResetCampaignKeyResult } from "@shared/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { assertOwnCampaign } from "../_shared/characters/campaigns.ts";

serve(endpoint({
  summary: "Gives a campaign a new join key; the old key and open join grants stop working",
  auth: ["api_key", "jwt"],
  body: ResetCampaignKeyBody,
  result: ResetCampaignKeyResult,
  run: async ({ body, tx }) => {
    await assertOwnCampaign(tx, body.id);
    const [row] = await tx<{ join_key: string }[]>`
      select private.reset_campaign_key(${body.id}) as join_key`;
    if (!row) throw new Error("reset_campaign_key returned no row");
    return { join_key: row.join_key };
  },
}));
