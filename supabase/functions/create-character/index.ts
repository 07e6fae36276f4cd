import { Character, CreateCharacterBody } from "@shared/characters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { Fail } from "../_shared/envelope.ts";
import { serve } from "../_shared/serve.ts";
import { insertCharacter, updateCharacterOrFail } from "../_shared/characters/characters.ts";

serve(endpoint({
  summary: "Creates a character, or with id updates the given fields of one the caller may write",
  auth: ["api_key", "jwt"],
  body: CreateCharacterBody,
  result: Character,
  characterGrant: (body) => body.id,
  run: async ({ body, caller, tx }) => {
    const { id, ...patch } = body;
    if (id !== undefined) return await updateCharacterOrFail(tx, id, patch);
    // A new character belongs to no grant yet, so no API client could ever reach it.
    if (caller.kind === "user" && caller.via === "api_key") {
      throw new Fail("You do not have access to this character", 403);
    }
    return await insertCharacter(tx, patch);
  },
}));
