import { z } from "zod";
import { Id, OptionalRef } from "../common.ts";
import { contentSchemas, describedFields, findBase, optionFields, recordFields } from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

/** A versatile heritage: a heritage open to any ancestry; `heritage_id` is its ability block. */
export const {
  Resource: VersatileHeritage,
  Save: SaveVersatileHeritageBody,
  Result: FindVersatileHeritageResult,
} = contentSchemas("VersatileHeritage", {
  ...describedFields,
  ...optionFields,
  heritage_id: OptionalRef,
  ...recordFields,
});
export type VersatileHeritage = z.infer<typeof VersatileHeritage>;

/** Body of find-versatile-heritage. */
export const FindVersatileHeritageBody = z.strictObject({
  ...findBase,
  heritage_id: Id.optional(),
});

/** The versatile-heritage content type: its registry entry. */
export const versatileHeritageType = contentType({
  name: "versatile-heritage",
  label: "versatile heritage",
  plural: "versatile heritages",
  resource: VersatileHeritage,
  save: SaveVersatileHeritageBody,
  find: FindVersatileHeritageBody,
  found: FindVersatileHeritageResult,
  searchBucket: "versatile_heritages",
  searchRow: ContentHit,
  createRequires: ["name", "content_source_id"],
});
