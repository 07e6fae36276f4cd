import { searchEndpoints } from "@shared/contract/search.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { similarityBackend } from "../_shared/similarity/similarity_backend.ts";

export const handler = endpoint(searchEndpoints, "vector-db-populate-collection", {
  run: async ({ body, tx }) => {
    const indexed = await similarityBackend.populate(tx, body);
    if (indexed === 0) throw fail("No results found");
    return { indexed };
  },
});
