import { z } from "zod";
import { Id, OptionalRef } from "../common.ts";
import { Rarity } from "../enums.ts";
import {
  contentSchemas,
  Deprecated,
  findBase,
  Int,
  MetaData,
  Name,
  Operations,
  ShortText,
  Text,
} from "./fields.ts";

/** A class. */
export const { Resource: Class, Save: SaveClassBody, Result: FindClassResult } = contentSchemas(
  "Class",
  {
    name: Name,
    rarity: Rarity,
    description: Text,
    content_source_id: Id,
    version: ShortText.nullable(),
    operations: Operations.nullable(),
    skill_training_base: Int.nullable(),
    trait_id: OptionalRef,
    artwork_url: ShortText.nullable(),
    deprecated: Deprecated,
    meta_data: MetaData,
  },
);
export type Class = z.infer<typeof Class>;

/** Body of find-class. */
export const FindClassBody = z.strictObject(findBase);
