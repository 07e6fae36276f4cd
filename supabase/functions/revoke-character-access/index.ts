import { z } from "zod";
import { RevokeCharacterAccessBody } from "@shared/character_access.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { assertOwnCharacter } from "../_shared/characters/access.ts";

serve(endpoint({
  summary: "Withdraws an API client's access to one of the caller's characters, effective at once",
  auth: ["jwt"],
  body: RevokeCharacterAccessBody,
  result: z.literal(true),
  run: async ({ body, tx }) => {
    await assertOwnCharacter(tx, body.character_id);
    // Idempotent: revoking a client that holds no grant leaves it without one, as asked.
    await tx`delete from public.character_grant
             where client_id = ${body.client_id} and character_id = ${body.character_id}`;
    return true as const;
  },
}));
