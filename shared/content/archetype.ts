import { z } from "zod";
import { Id, OptionalRef } from "../common.ts";
import { Rarity } from "../enums.ts";
import { contentSchemas, Deprecated, findBase, MetaData, Name, ShortText, Text } from "./fields.ts";

/** An archetype; `dedication_feat_id` is its dedication feat (an ability block). */
export const { Resource: Archetype, Save: SaveArchetypeBody, Result: FindArchetypeResult } =
  contentSchemas("Archetype", {
    name: Name,
    rarity: Rarity,
    description: Text,
    content_source_id: Id,
    version: ShortText.nullable(),
    trait_id: OptionalRef,
    artwork_url: ShortText.nullable(),
    deprecated: Deprecated,
    meta_data: MetaData,
    dedication_feat_id: Id.nullable(),
  });
export type Archetype = z.infer<typeof Archetype>;

/** Body of find-archetype; `dedication_feat_id` finds the archetype of a dedication feat. */
export const FindArchetypeBody = z.strictObject({ ...findBase, dedication_feat_id: Id.optional() });
