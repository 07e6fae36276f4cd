import { searchEndpoints } from "@shared/contract/search.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { similarityBackend } from "../_shared/similarity/similarity_backend.ts";

export const handler = endpoint(searchEndpoints, "vector-db-query-collection", {
  run: async ({ body, tx }) => await similarityBackend.query(tx, body),
});
