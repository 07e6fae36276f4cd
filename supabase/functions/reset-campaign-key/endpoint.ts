import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { checkedAhead } from "../_shared/db/checked_ahead.ts";
import { assertOwnCampaign } from "../_shared/characters/campaigns.ts";

export const handler = endpoint(campaignsEndpoints, "reset-campaign-key", {
  // The check and the reset (which refuses a campaign not the caller's itself) in one write.
  oneRoundTrip: () => true,
  run: async ({ body, tx }) => {
    const [row] = await checkedAhead(
      assertOwnCampaign(tx, body.id),
      async () =>
        await tx<{ join_key: string }[]>`select private.reset_campaign_key(${body.id}) as join_key`
          .execute(),
    );
    if (!row) throw new Error("reset_campaign_key returned no row");
    return { join_key: row.join_key };
  },
});
