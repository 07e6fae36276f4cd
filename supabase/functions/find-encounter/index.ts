import { z } from "zod";
import { Encounter, FindEncounterBody } from "@shared/encounters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { selectEncounters } from "../_shared/characters/encounters.ts";

serve(endpoint({
  summary: "Finds the caller's own encounters by id or campaign",
  auth: ["api_key", "jwt"],
  body: FindEncounterBody,
  result: z.array(Encounter),
  run: async ({ body, tx }) => await selectEncounters(tx, body),
}));
