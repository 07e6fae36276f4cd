import { charactersEndpoints } from "@shared/contract/characters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { selectCharacters } from "../_shared/characters/characters.ts";

export const handler = endpoint(charactersEndpoints, "find-character", {
  // One statement, sent with its COMMIT; it only reads, so it runs while the budget is checked.
  oneRoundTrip: () => true,
  readOnly: true,
  characterGrant: (body) => typeof body.id === "number" ? body.id : undefined,
  run: async ({ body, caller, tx }) => {
    // The interface's rule for API keys: one character per call (grants are per character).
    if (caller.kind === "api_key" && Array.isArray(body.id)) {
      throw fail("Invalid value for id: an API key takes one integer id per call", { field: "id" });
    }
    return oneOrMany(body.id, await selectCharacters(tx, body));
  },
});
