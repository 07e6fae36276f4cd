import { z } from "zod";
import { Id } from "./common.ts";
import {
  AbilityBlock,
  Ancestry,
  Archetype,
  Background,
  Class,
  ClassArchetype,
  Creature,
  Hazard,
  Item,
  Language,
  Spell,
  Trait,
  VersatileHeritage,
} from "./content.ts";
import {
  AbilityBlockActions,
  AbilityBlockType,
  Availability,
  ContentType,
  ItemGroup,
  ItemSize,
  Rarity,
  SpellKind,
} from "./enums.ts";

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

// Simple mode's trimmed rows (section 9 of the endpoint notes; creatures and hazards also carry
// their `type`, as the interface's search summary has it).

/** An ability block as simple mode returns it. */
export const AbilityBlockHit = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  level: z.int().nullable(),
  type: AbilityBlockType,
  traits: z.array(Id),
  content_source_id: Id,
}).meta({ id: "AbilityBlockHit" });

/** An item as simple mode returns it. */
export const ItemHit = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  level: z.int(),
  traits: z.array(Id),
  group: ItemGroup,
  hands: z.string().nullable(),
  content_source_id: Id,
}).meta({ id: "ItemHit" });

/** A spell as simple mode returns it. */
export const SpellHit = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  rank: z.int(),
  traits: z.array(Id),
  traditions: z.array(z.string()),
  content_source_id: Id,
}).meta({ id: "SpellHit" });

/** A creature or hazard as simple mode returns it. */
export const StatBlockHit = z.object({
  id: Id,
  name: z.string(),
  level: z.int(),
  type: z.enum(["creature", "hazard"]),
  content_source_id: Id,
}).meta({ id: "StatBlockHit" });

/** Any other content as simple mode returns it. */
export const ContentHit = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  content_source_id: Id,
}).meta({ id: "ContentHit" });

/** The thirteen buckets, each with its simple-mode row and its full (advanced-mode) row. */
const buckets = {
  ability_blocks: [AbilityBlockHit, AbilityBlock],
  ancestries: [ContentHit, Ancestry],
  archetypes: [ContentHit, Archetype],
  backgrounds: [ContentHit, Background],
  classes: [ContentHit, Class],
  creatures: [StatBlockHit, Creature],
  hazards: [StatBlockHit, Hazard],
  items: [ItemHit, Item],
  languages: [ContentHit, Language],
  spells: [SpellHit, Spell],
  traits: [ContentHit, Trait],
  versatile_heritages: [ContentHit, VersatileHeritage],
  class_archetypes: [ContentHit, ClassArchetype],
} as const;

/** The name of one result bucket. */
export type SearchBucket = keyof typeof buckets;

/** Every bucket name, in the interface's order. */
export const SEARCH_BUCKETS = Object.keys(buckets) as SearchBucket[];

/** The trimmed row simple mode returns in a bucket. */
export function simpleRowOf(bucket: SearchBucket): z.ZodObject {
  return buckets[bucket][0];
}

type BucketShapes<I extends 0 | 1> = {
  [K in SearchBucket]: z.ZodArray<(typeof buckets)[K][I]>;
};

function resultOf<I extends 0 | 1>(index: I): z.ZodObject<BucketShapes<I>> {
  const shape = Object.fromEntries(
    SEARCH_BUCKETS.map((key) => [key, z.array(buckets[key][index])]),
  ) as BucketShapes<I>;
  return z.object(shape);
}

/** Simple mode's result: every bucket present, each a ranked list of trimmed rows. */
export const SearchDataSimpleResult = resultOf(0).meta({ id: "SearchDataSimpleResult" });

/** Advanced mode's result: every bucket present; only the `type` bucket holds (full) rows. */
export const SearchDataAdvancedResult = resultOf(1).meta({ id: "SearchDataAdvancedResult" });

/** Result of search-data. Full rows are tried first: a trimmed row never passes as one. */
export const SearchDataResult = z.union([SearchDataAdvancedResult, SearchDataSimpleResult]);
export type SearchDataResult = z.input<typeof SearchDataResult>;
