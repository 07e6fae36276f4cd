import { SearchDataBody, SearchDataResult } from "@shared/search.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { advancedSearch } from "../_shared/search/advanced_search.ts";
import { simpleSearch } from "../_shared/search/simple_search.ts";

serve(endpoint({
  summary:
    "Searches all content: fuzzy full-text search (`text`) or exact filters on one content type (`is_advanced`)",
  auth: ["api_key", "jwt"],
  body: SearchDataBody,
  result: SearchDataResult,
  run: async ({ body, tx }) =>
    body.is_advanced ? await advancedSearch(tx, body) : await simpleSearch(tx, body),
}));
