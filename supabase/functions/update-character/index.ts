import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { updateCharacter } from "../_shared/characters/characters.ts";

serve(endpoint("update-character", {
  characterGrant: (body) => body.id,
  run: async ({ body, tx }) => {
    const { id, expected_updated_at, ...patch } = body;
    return await updateCharacter(tx, id, patch, expected_updated_at);
  },
}));
