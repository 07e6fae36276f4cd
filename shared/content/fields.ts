import { z } from "zod";
import { Rarity } from "../enums.ts";
import {
  Id,
  IdFilter,
  JsonObject,
  optionalInput,
  OptionalRef,
  SaveId,
  Timestamp,
} from "../common.ts";

// Building blocks of the content schemas. Each content type lists its own fields once; the
// resource (what comes back) and the save body (what create-<type> takes) are both derived from
// that one list by contentSchemas().

/** Free text of a top-level field: trimmed on write. */
export const Text = z.string().trim().max(100_000);

/** Short text (urls, versions, bulk, speakers and the like): trimmed on write. */
export const ShortText = z.string().trim().max(2_000);

/** A content name: trimmed, typographic apostrophes made plain, 1 to 200 characters. */
export const Name = z.string().trim().min(1).max(200).overwrite((s) => s.replaceAll("’", "'"));

/** A 32-bit integer column. */
export const Int = z.int32();

/** A list of row ids, such as `traits`. */
export const IdList = z.array(Id).max(1_000);

/** A list of short strings, such as `traditions` or `prerequisites`. */
export const StringList = z.array(z.string().max(500)).max(200);

/** `operations`: an array of objects whose inner shape is the client's business. */
export const Operations = z.array(JsonObject).max(5_000);

/** Where a record is printed. */
export const SourceRef = z.looseObject({
  book: z.string().optional(),
  page: z.string().optional(),
  url: z.string().optional(),
}).meta({ id: "SourceRef" });

/** `meta_data` of most content: `source` plus anything else the client stores. */
export const MetaData = z.looseObject({ source: SourceRef.optional() }).meta({ id: "MetaData" });

/** Whether a record is kept only for old characters (the builder hides it from new choices). */
export const Deprecated = z.boolean();

/**
 * The fields a described record opens with: its name, rarity and text, and the source and version
 * it is printed in. Content types spread it into their field lists.
 */
export const describedFields = {
  name: Name,
  rarity: Rarity,
  description: Text,
  content_source_id: Id,
  version: ShortText.nullable(),
};

/** The fields a record closes with: whether it is deprecated, and the client's `meta_data`. */
export const recordFields = { deprecated: Deprecated, meta_data: MetaData };

/**
 * The fields of a character option that has a trait of its own (an ancestry, a class, an archetype,
 * a versatile heritage: the trait that marks what comes from it) and artwork.
 */
export const optionFields = { trait_id: OptionalRef, artwork_url: ShortText.nullable() };

// Keys a caller may send back from a fetched record, also as "" (the web client's blank form);
// the server never writes them.
const serverManaged = {
  created_at: z.unknown().optional(),
  updated_at: z.unknown().optional(),
  user_id: z.unknown().optional(),
};

/**
 * Derives a content type's schemas from its field list: the stored resource (id and timestamps
 * added) and the create-or-update body (every field optional, `id` absent or -1 for a new row,
 * server-managed keys accepted and ignored, unknown keys refused).
 */
export function contentSchemas<const N extends string, const F extends z.ZodRawShape>(
  name: N,
  fields: F,
) {
  const Resource = z.object({ id: Id, ...fields, created_at: Timestamp, updated_at: Timestamp })
    .meta({ id: name });
  const saveShape = Object.fromEntries(
    Object.entries(fields).map(([key, schema]) => [key, optionalInput(schema as z.ZodType)]),
  ) as unknown as { [K in keyof F]: z.ZodOptional<F[K]> };
  const Save = z.strictObject(saveShape).extend({ id: SaveId, ...serverManaged })
    .meta({ id: `Save${name}` });
  const Result = z.union([Resource, z.array(Resource)]).nullable();
  return { Resource, Save, Result };
}

/** A find's `name` as it is compared: trimmed, typographic apostrophes made plain. */
const nameFilter = (description: string) =>
  z.string().trim().min(1).max(200).overwrite((s) => s.replaceAll("’", "'")).meta({
    description,
  });

/**
 * `name` where interface.md lists the parameter (find-spell, find-language): a case-insensitive
 * exact match, never fuzzy.
 */
export const ExactNameFilter = nameFilter("The record's name, matched exactly in any case");

/**
 * `name` on the other find endpoints, where interface.md lists no `name`: any part of the
 * record's name in any case ("hearth" finds "Hearthling"); the answer is ordered by name, then id,
 * records of exactly that name first.
 */
export const NamePartFilter = nameFilter(
  "Part of the record's name, in any case; the answer is ordered by name, then id, except " +
    "that records of exactly that name come first",
);

/**
 * Filters every find endpoint takes: `id`, `name` (a part of the name, any case; find-spell and
 * find-language replace it with an exact match), `content_sources`.
 */
export const findBase = {
  id: IdFilter.optional(),
  name: NamePartFilter.optional(),
  content_sources: z.array(Id).max(1_000).optional(),
  /** The admin tools' filters: applied where the type has the column, else ignored. */
  level: z.int32().optional(),
  rarity: Rarity.optional(),
  group: z.string().trim().max(200).optional(),
  /**
   * The admin tools' ability-block type, sent to whichever finder they call: find-ability-block
   * filters on it (its own schema narrows it), every other type ignores it, as the reference does.
   */
  type: z.string().trim().max(100).optional(),
};

/** The `traits` filter: rows carrying every listed trait id. */
export const traitsFilter = { traits: IdList.optional() };
