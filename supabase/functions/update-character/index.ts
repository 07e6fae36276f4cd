import { UpdateCharacterBody, UpdateCharacterResult } from "@shared/characters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { updateCharacter } from "../_shared/characters/characters.ts";

serve(endpoint({
  summary:
    "Updates the given fields of a character, optionally only if unchanged since a time; answers [row], or __conflict / __forbidden as data",
  auth: ["api_key", "jwt"],
  body: UpdateCharacterBody,
  result: UpdateCharacterResult,
  characterGrant: (body) => body.id,
  run: async ({ body, tx }) => {
    const { id, expected_updated_at, ...patch } = body;
    return await updateCharacter(tx, id, patch, expected_updated_at);
  },
}));
