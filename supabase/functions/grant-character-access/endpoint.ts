import { charactersEndpoints } from "@shared/contract/characters.ts";
import { CharacterGrant } from "@shared/character_access.ts";
import type { z } from "zod";
import { endpoint } from "../_shared/endpoint.ts";
import { assertOwnCharacter } from "../_shared/characters/access.ts";

export const handler = endpoint(charactersEndpoints, "grant-character-access", {
  run: async ({ body, tx }) => {
    assertOwnCharacter(tx, body.character_id);
    const [grant] = await tx<z.input<typeof CharacterGrant>[]>`
      select client_id, character_id, granted_at
      from private.grant_character_access(${body.client_id}, ${body.user_id}::uuid,
                                          ${body.character_id})`;
    if (!grant) throw new Error("grant_character_access returned no row");
    return grant;
  },
});
