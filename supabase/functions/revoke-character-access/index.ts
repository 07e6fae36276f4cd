import { charactersEndpoints } from "@shared/contract/characters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { assertOwnCharacter } from "../_shared/characters/access.ts";

serve(endpoint(charactersEndpoints, "revoke-character-access", {
  run: async ({ body, tx }) => {
    await assertOwnCharacter(tx, body.character_id);
    // Idempotent: revoking a client that holds no grant leaves it without one, as asked.
    await tx`delete from public.character_grant
             where client_id = ${body.client_id} and character_id = ${body.character_id}`;
    return true as const;
  },
}));
