import type {
  PopulateCollectionBody,
  QueryCollectionBody,
  SimilarityMatch,
} from "@shared/similarity.ts";
import type { Tx } from "../db/pool.ts";
import { PostgresSimilarity } from "./postgres_similarity.ts";

/**
 * Ranks content by similarity to a query. The endpoints depend only on this, so an embeddings
 * backend (pgvector with an embeddings provider) can replace the Postgres ranking later.
 * Both calls run in the caller's transaction, so the read policies decide what is seen. Each sends
 * all its statements before it awaits an answer.
 */
export interface SimilarityBackend {
  /** Which backend this is, for logs and docs. */
  readonly kind: string;
  /** Makes the given records searchable; returns how many of them are. */
  populate(tx: Tx, request: PopulateCollectionBody): Promise<number>;
  /** The readable records nearest to the query, nearest first. */
  query(tx: Tx, request: QueryCollectionBody): Promise<SimilarityMatch[]>;
}

/** The backend in use: trigram and full-text ranking in Postgres, always current. */
export const similarityBackend: SimilarityBackend = new PostgresSimilarity();
