// The endpoints of the search area: full-text, filtered and similarity search.
import { z } from "zod";
import { SearchDataBody, SearchDataResult } from "../search.ts";
import {
  PopulateCollectionBody,
  PopulatedCollection,
  QueryCollectionBody,
  SimilarityMatch,
} from "../similarity.ts";
import { type EndpointContract, USER_OR_KEY } from "./entry.ts";

export const searchEndpoints = {
  "search-data": {
    summary:
      "Searches all content: fuzzy full-text search (`text`) or exact filters on one content type (`is_advanced`)",
    area: "search",
    effect: "read",
    auth: USER_OR_KEY,
    rules: [
      "`level_min` must not be greater than `level_max`, nor `rank_min` greater than `rank_max`; " +
      "`level` stands for whichever of `level_min` and `level_max` is not given.",
    ],
    body: SearchDataBody,
    result: SearchDataResult,
  },
  "vector-db-populate-collection": {
    summary: "Makes records searchable by similarity and reports how many of the ids are indexed",
    area: "search",
    effect: "additive",
    auth: ["jwt", "api_key"],
    body: PopulateCollectionBody,
    result: PopulatedCollection,
  },
  "vector-db-query-collection": {
    summary: "Finds the readable records nearest to a query by name or by content, nearest first",
    area: "search",
    effect: "read",
    auth: ["jwt", "api_key"],
    body: QueryCollectionBody,
    result: z.array(SimilarityMatch),
  },
} as const satisfies Record<string, EndpointContract>;
