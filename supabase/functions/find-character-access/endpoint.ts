import { charactersEndpoints } from "@shared/contract/characters.ts";
import { z } from "zod";
import { AuthorizedClient } from "@shared/character_access.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { assertOwnCharacter } from "../_shared/characters/access.ts";

export const handler = endpoint(charactersEndpoints, "find-character-access", {
  run: async ({ body, tx }) => {
    assertOwnCharacter(tx, body.character_id);
    return await tx<z.input<typeof AuthorizedClient>[]>`
      select client_id, client_name, client_description, owner_user_id, owner_display_name,
             granted_at
      from private.character_access(${body.character_id})`;
  },
});
