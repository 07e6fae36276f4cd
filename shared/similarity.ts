import { z } from "zod";
import { Id } from "./common.ts";
import { ContentRecordType } from "./content_type_names.ts";
import { Rarity } from "./enums.ts";

/** What a similarity query compares: the record's name, or its name and description text. */
export const SimilarityCollection = z.enum(["name", "content"]).meta({
  id: "SimilarityCollection",
});
export type SimilarityCollection = z.infer<typeof SimilarityCollection>;

/** The content types similarity search covers: every content table. */
export const SimilarityType = ContentRecordType;
export type SimilarityType = z.infer<typeof SimilarityType>;

/** Body of vector-db-populate-collection. */
export const PopulateCollectionBody = z.object({
  collection: SimilarityCollection,
  type: SimilarityType,
  ids: z.array(Id).min(1, "ids needs at least one id").max(1000, "ids takes at most 1000 ids"),
});
export type PopulateCollectionBody = z.infer<typeof PopulateCollectionBody>;

/** What populate reports: how many of the ids are readable records, and so are searchable. */
export const PopulatedCollection = z.object({ indexed: z.int().nonnegative() }).meta({
  id: "PopulatedCollection",
});
export type PopulatedCollection = z.infer<typeof PopulatedCollection>;

/** A metadata condition: a value, `{$eq: value}` or `{$in: [values]}`. */
function condition<T extends z.ZodType>(value: T) {
  return z.union([
    value,
    z.strictObject({ $eq: value }),
    z.strictObject({ $in: z.array(value).min(1).max(100) }),
  ]);
}

/** The metadata filter of a similarity query; every condition given must hold. */
export const SimilarityWhere = z.strictObject({
  _type: condition(SimilarityType).optional(),
  id: condition(Id).optional(),
  content_source_id: condition(Id).optional(),
  rarity: condition(Rarity).optional(),
  level: condition(z.int().min(-1000).max(1000)).optional(),
  rank: condition(z.int().min(0).max(10)).optional(),
}).meta({ id: "SimilarityWhere" });
export type SimilarityWhere = z.infer<typeof SimilarityWhere>;

/** Body of vector-db-query-collection. */
export const QueryCollectionBody = z.object({
  collection: SimilarityCollection,
  query: z.string().trim().min(1, "query must not be empty").max(1000),
  nResults: z.int().min(1).max(100).default(1),
  /** Distances run from 0 (identical) to 1 (nothing in common). */
  maxDistance: z.number().min(0).default(1),
  where: SimilarityWhere.optional(),
});
export type QueryCollectionBody = z.infer<typeof QueryCollectionBody>;

/** A record's metadata: its plain (string, number, boolean) fields, plus `_type`. */
export const SimilarityRecord = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean()]),
);

/** One result: the record and its distance from the query, nearest first. */
export const SimilarityMatch = z.object({
  data: SimilarityRecord,
  distance: z.number().min(0).max(1),
}).meta({ id: "SimilarityMatch" });
export type SimilarityMatch = z.infer<typeof SimilarityMatch>;
