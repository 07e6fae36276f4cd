import { charactersEndpoints } from "@shared/contract/characters.ts";
import { actsForUser } from "../_shared/auth/identity.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { updateCharacter } from "../_shared/characters/characters.ts";

export const handler = endpoint(charactersEndpoints, "update-character", {
  characterGrant: (body) => body.id,
  // `__forbidden` and `__conflict` are refusals answered as data: nothing was written.
  didWork: (result) => Array.isArray(result),
  run: async ({ body, caller, tx }) => {
    const { id, expected_updated_at, ...patch } = body;
    // Signed out, the web client expects the reference's answer: no access, nothing written.
    if (!actsForUser(caller)) {
      const visible = await tx`select 1 from public.character where id = ${id}`;
      return { __forbidden: true, reason: visible.length > 0 ? "WRITE_DENIED" : "NOT_VISIBLE" };
    }
    return await updateCharacter(tx, id, patch, expected_updated_at);
  },
});
