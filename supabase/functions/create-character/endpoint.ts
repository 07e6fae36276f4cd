import { charactersEndpoints } from "@shared/contract/characters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { insertCharacter, updateCharacterOrFail } from "../_shared/characters/characters.ts";

export const handler = endpoint(charactersEndpoints, "create-character", {
  characterGrant: (body) => body.id,
  run: async ({ body, tx }) => {
    const { id, ...patch } = body;
    if (id !== undefined) return await updateCharacterOrFail(tx, id, patch);
    // An API key may not create a character: the database refuses it with 403.
    return await insertCharacter(tx, patch);
  },
});
