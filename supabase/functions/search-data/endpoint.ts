import { searchEndpoints } from "@shared/contract/search.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { advancedSearch } from "../_shared/search/advanced_search.ts";
import { simpleSearch } from "../_shared/search/simple_search.ts";

export const handler = endpoint(searchEndpoints, "search-data", {
  run: async ({ body, tx }) =>
    body.is_advanced ? await advancedSearch(tx, body) : await simpleSearch(tx, body),
});
