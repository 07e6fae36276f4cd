import { z } from "zod";
import { Id } from "../common.ts";
import { Rarity } from "../enums.ts";
import {
  contentSchemas,
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
    trait_id: Id.nullable(),
    artwork_url: ShortText.nullable(),
    meta_data: MetaData,
  },
);
export type Class = z.infer<typeof Class>;

/** Body of find-class. */
export const FindClassBody = z.strictObject(findBase);
