import { CreateEncounterBody, Encounter } from "@shared/encounters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { saveEncounter } from "../_shared/characters/encounters.ts";

serve(endpoint({
  summary:
    "Creates an encounter (supporter tier 1 or higher), or with id updates one the caller owns",
  auth: ["api_key", "jwt"],
  body: CreateEncounterBody,
  result: Encounter,
  run: async ({ body, tx }) => await saveEncounter(tx, body),
}));
