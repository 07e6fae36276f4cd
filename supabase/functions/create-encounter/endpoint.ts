import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { saveEncounter } from "../_shared/characters/encounters.ts";

export const handler = endpoint(campaignsEndpoints, "create-encounter", {
  run: async ({ body, tx }) => await saveEncounter(tx, body),
});
