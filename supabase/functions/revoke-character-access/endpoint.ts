import { charactersEndpoints } from "@shared/contract/characters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { assertOwnCharacter } from "../_shared/characters/access.ts";

export const handler = endpoint(charactersEndpoints, "revoke-character-access", {
  run: async ({ body, tx }) => {
    // Idempotent: revoking a client that holds no grant leaves it without one, as asked.
    assertOwnCharacter(tx, body.character_id);
    await tx`delete from public.character_grant
             where client_id = ${body.client_id} and character_id = ${body.character_id}`;
    return true as const;
  },
});
