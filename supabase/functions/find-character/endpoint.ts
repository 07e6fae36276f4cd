import { charactersEndpoints } from "@shared/contract/characters.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { oneOrMany } from "../_shared/one_or_many.ts";
import { selectCharacters } from "../_shared/characters/characters.ts";

export const handler = endpoint(charactersEndpoints, "find-character", {
  // One id under an API key needs the key's grant on it (403 without); any other filter, an id
  // list included, answers the characters among its matches that row-level policies admit: for a
  // key, the granted ones.
  characterGrant: (body) => typeof body.id === "number" ? body.id : undefined,
  run: async ({ body, tx }) => oneOrMany(body.id, await selectCharacters(tx, body)),
});
