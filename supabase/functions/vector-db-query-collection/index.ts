import { QueryCollectionBody, SimilarityMatch } from "@shared/similarity.ts";
import { z } from "zod";
import { endpoint } from "../_shared/endpoint.ts";
import { serve } from "../_shared/serve.ts";
import { similarityBackend } from "../_shared/similarity/similarity_backend.ts";

serve(endpoint({
  summary: "Finds the readable records nearest to a query by name or by content, nearest first",
  auth: ["jwt", "api_key"],
  body: QueryCollectionBody,
  result: z.array(SimilarityMatch),
  run: async ({ body, tx }) => await similarityBackend.query(tx, body),
}));
