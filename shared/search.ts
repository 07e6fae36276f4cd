import { z } from "zod";
import { Id } from "./common.ts";
import {
  CONTENT_TYPE_NAMES,
  ContentType,
  type ContentTypeName,
  contentTypes,
} from "./content_types.ts";
import {
  AbilityBlockActions,
  AbilityBlockType,
  Availability,
  ItemGroup,
  ItemSize,
  Rarity,
  SpellKind,
} from "./enums.ts";

export * from "./search_rows.ts";

// The search-data contract (docs/search.md). Simple mode (`text`) is fuzzy full-text search over
// every content type and returns trimmed rows; advanced mode (`is_advanced: true`) applies exact
// filters to the one table `type` names and returns full rows.

/** Longest search text or text filter accepted, so no request can ask for a slow scan. */
export const SEARCH_TEXT_MAX = 200;

/** Rows per content type in simple mode unless `limit` says otherwise. */
export const SIMPLE_DEFAULT_LIMIT = 20;

/** Largest `limit` simple mode accepts. */
export const SIMPLE_MAX_LIMIT = 100;

/** Rows advanced mode returns at most (the reference platform's per-query maximum). */
export const ADVANCED_LIMIT = 10_000;

/** A text filter of advanced mode (words, "phrases", wild*cards, -exclusions; any case). */
const TextFilter = z.string().max(SEARCH_TEXT_MAX).nullish();

/** An exact-match filter (`cast`, `bulk`, `hands`). */
const ExactFilter = z.string().max(SEARCH_TEXT_MAX).nullish();

/** A level or rank bound. */
const Bound = z.int().min(-1_000).max(1_000).nullish();

/** Body of search-data. `null` for any filter means the same as leaving it out. */
export const SearchDataBody = z.strictObject({
  text: z.string().max(SEARCH_TEXT_MAX).nullish(),
  is_advanced: z.boolean().nullish(),
  content_sources: z.array(Id).max(1_000).nullish(),
  /** Simple mode: rows per content type (default 20, at most 100). */
  limit: z.int().min(1).max(SIMPLE_MAX_LIMIT).nullish(),

  type: ContentType.nullish(),
  rarity: Rarity.nullish(),
  availability: Availability.nullish(),
  size: ItemSize.nullish(),
  spell_type: SpellKind.nullish(),
  actions: AbilityBlockActions.nullish(),
  ab_type: AbilityBlockType.nullish(),
  group: ItemGroup.nullish(),

  name: TextFilter,
  description: TextFilter,
  cost: TextFilter,
  trigger: TextFilter,
  requirements: TextFilter,
  frequency: TextFilter,
  access: TextFilter,
  special: TextFilter,
  range: TextFilter,
  area: TextFilter,
  targets: TextFilter,
  duration: TextFilter,
  defense: TextFilter,
  usage: TextFilter,
  craft_requirements: TextFilter,

  cast: ExactFilter,
  bulk: ExactFilter,
  hands: ExactFilter,

  traits: z.array(Id).max(50).nullish(),
  traditions: z.array(z.string().max(50)).max(20).nullish(),
  prerequisites: z.array(z.string().max(SEARCH_TEXT_MAX)).max(20).nullish(),

  level_min: Bound,
  level_max: Bound,
  rank_min: Bound,
  rank_max: Bound,
  /** The admin tools' exact level: read as `level_min` and `level_max` both equal to it. */
  level: Bound,
  /** The web client filters on prerequisites itself: accepted and ignored. */
  meets_prerequisites: z.union([z.string().max(50), z.boolean()]).nullish(),
}).transform(({ level, meets_prerequisites: _ignored, ...body }) =>
  level === null || level === undefined
    ? body
    : { ...body, level_min: body.level_min ?? level, level_max: body.level_max ?? level }
).superRefine((body, ctx) => {
  for (const [low, high] of [["level_min", "level_max"], ["rank_min", "rank_max"]] as const) {
    const min = body[low];
    const max = body[high];
    if (min !== null && min !== undefined && max !== null && max !== undefined && min > max) {
      ctx.addIssue({
        code: "custom",
        path: [low],
        input: min,
        message: `${low} must not be greater than ${high}`,
      });
    }
  }
}).meta({ id: "SearchDataBody" });
export type SearchDataBody = z.infer<typeof SearchDataBody>;

/** A content type with a search bucket: its bucket name, simple-mode row and full row. */
type Searched = {
  [N in ContentTypeName]: (typeof contentTypes)[N] extends { searchBucket: infer B extends string }
    ? {
      bucket: B;
      row: (typeof contentTypes)[N]["searchRow"];
      resource: (typeof contentTypes)[N]["resource"];
    }
    : never;
}[ContentTypeName];

/** The name of one result bucket. */
export type SearchBucket = Searched["bucket"];

/** Every bucket name, in registry order: one per content type that search covers. */
export const SEARCH_BUCKETS = CONTENT_TYPE_NAMES.flatMap((name) => {
  const bucket = contentTypes[name].searchBucket;
  return bucket === null ? [] : [bucket];
}) as SearchBucket[];

function entryOf(bucket: SearchBucket) {
  const name = CONTENT_TYPE_NAMES.find((n) => contentTypes[n].searchBucket === bucket)!;
  return contentTypes[name];
}

/** The trimmed row simple mode returns in a bucket. */
export function simpleRowOf(bucket: SearchBucket): z.ZodObject {
  return entryOf(bucket).searchRow;
}

type BucketShapes<I extends "row" | "resource"> = {
  [S in Searched as S["bucket"]]: z.ZodArray<S[I]>;
};

function resultOf<I extends "row" | "resource">(part: I): z.ZodObject<BucketShapes<I>> {
  const shape = Object.fromEntries(
    SEARCH_BUCKETS.map((bucket) => {
      const entry = entryOf(bucket);
      return [bucket, z.array(part === "row" ? entry.searchRow : entry.resource)];
    }),
  ) as BucketShapes<I>;
  return z.object(shape);
}

/** Simple mode's result: every bucket present, each a ranked list of trimmed rows. */
export const SearchDataSimpleResult = resultOf("row").meta({ id: "SearchDataSimpleResult" });

/** Advanced mode's result: every bucket present; only the `type` bucket holds (full) rows. */
export const SearchDataAdvancedResult = resultOf("resource").meta({
  id: "SearchDataAdvancedResult",
});

/** Result of search-data. Full rows are tried first: a trimmed row never passes as one. */
export const SearchDataResult = z.union([SearchDataAdvancedResult, SearchDataSimpleResult]);
export type SearchDataResult = z.input<typeof SearchDataResult>;
