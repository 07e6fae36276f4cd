import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { assertOwnCampaign } from "../_shared/characters/campaigns.ts";

export const handler = endpoint(campaignsEndpoints, "reset-campaign-key", {
  run: async ({ body, tx }) => {
    assertOwnCampaign(tx, body.id);
    const [row] = await tx<{ join_key: string }[]>`
      select private.reset_campaign_key(${body.id}) as join_key`;
    if (!row) throw new Error("reset_campaign_key returned no row");
    return { join_key: row.join_key };
  },
});
