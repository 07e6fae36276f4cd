import { campaignsEndpoints } from "@shared/contract/campaigns.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { selectEncounters } from "../_shared/characters/encounters.ts";

export const handler = endpoint(campaignsEndpoints, "find-encounter", {
  run: async ({ body, tx }) => await selectEncounters(tx, body),
});
