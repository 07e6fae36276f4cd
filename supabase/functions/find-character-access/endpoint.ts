import { charactersEndpoints } from "@shared/contract/characters.ts";
import { z } from "zod";
import { AuthorizedClient } from "@shared/character_access.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { assertOwnCharacter } from "../_shared/characters/access.ts";
import { checkedAhead } from "../_shared/db/checked_ahead.ts";

export const handler = endpoint(charactersEndpoints, "find-character-access", {
  // The check and the list (empty unless the caller owns the character) in one write.
  oneRoundTrip: () => true,
  readOnly: true,
  run: async ({ body, tx }) =>
    await checkedAhead(
      assertOwnCharacter(tx, body.character_id),
      async () =>
        await tx<z.input<typeof AuthorizedClient>[]>`
        select client_id, client_name, client_description, owner_user_id, owner_display_name,
               granted_at
        from private.character_access(${body.character_id})`.execute(),
    ),
});
