import { endpoint } from "../_shared/endpoint.ts";
import { Fail } from "../_shared/envelope.ts";
import { serve } from "../_shared/serve.ts";
import { insertCharacter, updateCharacter } from "../_shared/characters/characters.ts";

serve(endpoint("create-character", {
  characterGrant: (body) => body.id,
  run: async ({ body, caller, tx }) => {
    const { id, ...patch } = body;
    if (id !== undefined) return await updateCharacter(tx, id, patch);
    // A new character belongs to no grant yet, so no API client could ever reach it.
    if (caller.kind === "user" && caller.via === "api_key") {
      throw new Fail("You do not have access to this character", 403);
    }
    return await insertCharacter(tx, patch);
  },
}));
