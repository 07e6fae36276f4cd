import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { saveEncounter } from "../_shared/characters/encounters.ts";

export const handler = endpoint(campaignsEndpoints, "create-encounter", {
  // One statement, sent with its COMMIT.
  oneRoundTrip: () => true,
  run: async ({ body, tx }) => await saveEncounter(tx, body),
});
