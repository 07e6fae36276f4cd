import { z } from "zod";
import { Id } from "../common.ts";
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

/** A background. */
export const { Resource: Background, Save: SaveBackgroundBody, Result: FindBackgroundResult } =
  contentSchemas("Background", {
    name: Name,
    rarity: Rarity,
    description: Text,
    operations: Operations.nullable(),
    content_source_id: Id,
    version: ShortText.nullable(),
    artwork_url: ShortText.nullable(),
    deprecated: Deprecated,
    meta_data: MetaData,
  });
export type Background = z.infer<typeof Background>;

/** Body of find-background. */
export const FindBackgroundBody = z.strictObject(findBase);
