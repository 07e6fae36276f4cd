import { z } from "zod";
import { Id, OptionalRef } from "../common.ts";
import { Rarity } from "../enums.ts";
import { contentSchemas, Deprecated, findBase, MetaData, Name, ShortText, Text } from "./fields.ts";

/** A versatile heritage: a heritage open to any ancestry; `heritage_id` is its ability block. */
export const {
  Resource: VersatileHeritage,
  Save: SaveVersatileHeritageBody,
  Result: FindVersatileHeritageResult,
} = contentSchemas("VersatileHeritage", {
  content_source_id: Id,
  trait_id: OptionalRef,
  heritage_id: OptionalRef,
  name: Name,
  description: Text,
  version: ShortText.nullable(),
  artwork_url: ShortText.nullable(),
  rarity: Rarity,
  deprecated: Deprecated,
  meta_data: MetaData,
});
export type VersatileHeritage = z.infer<typeof VersatileHeritage>;

/** Body of find-versatile-heritage. */
export const FindVersatileHeritageBody = z.strictObject({
  ...findBase,
  heritage_id: Id.optional(),
});
