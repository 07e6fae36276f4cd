import { z } from "zod";
import { Id, OptionalRef } from "../common.ts";
import { Rarity } from "../enums.ts";
import {
  contentSchemas,
  Deprecated,
  findBase,
  MetaData,
  Name,
  Operations,
  ShortText,
  Text,
} from "./fields.ts";

/** An ancestry. */
export const { Resource: Ancestry, Save: SaveAncestryBody, Result: FindAncestryResult } =
  contentSchemas("Ancestry", {
    name: Name,
    rarity: Rarity,
    description: Text,
    content_source_id: Id,
    version: ShortText.nullable(),
    trait_id: OptionalRef,
    artwork_url: ShortText.nullable(),
    deprecated: Deprecated,
    meta_data: MetaData,
    operations: Operations.nullable(),
  });
export type Ancestry = z.infer<typeof Ancestry>;

/** Body of find-ancestry. */
export const FindAncestryBody = z.strictObject(findBase);
