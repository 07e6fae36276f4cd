import { charactersEndpoints } from "@shared/contract/characters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { assertOwnCharacter } from "../_shared/characters/access.ts";
import { checkedAhead } from "../_shared/db/checked_ahead.ts";

export const handler = endpoint(charactersEndpoints, "revoke-character-access", {
  // The check and the delete (which the grant table's policies limit to the character's owner)
  // in one write.
  oneRoundTrip: () => true,
  run: async ({ body, tx }) => {
    // Idempotent: revoking a client that holds no grant leaves it without one, as asked.
    await checkedAhead(
      assertOwnCharacter(tx, body.character_id),
      async () =>
        await tx`delete from public.character_grant
               where client_id = ${body.client_id} and character_id = ${body.character_id}`
          .execute(),
    );
    return true as const;
  },
});
