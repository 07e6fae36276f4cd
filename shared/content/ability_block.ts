import { z } from "zod";
import { Id } from "../common.ts";
import { AbilityBlockActions, AbilityBlockType, Availability, Rarity } from "../enums.ts";
import {
  contentSchemas,
  Deprecated,
  findBase,
  IdList,
  Int,
  MetaData,
  Name,
  Operations,
  ShortText,
  StringList,
  Text,
  traitsFilter,
} from "./fields.ts";

/** An ability block: an action, feat, physical feature, sense, class feature, heritage or mode. */
export const {
  Resource: AbilityBlock,
  Save: SaveAbilityBlockBody,
  Result: FindAbilityBlockResult,
} = contentSchemas("AbilityBlock", {
  content_source_id: Id,
  level: Int.nullable(),
  name: Name,
  description: Text,
  version: ShortText.nullable(),
  rarity: Rarity,
  type: AbilityBlockType,
  actions: AbilityBlockActions.nullable(),
  availability: Availability,
  operations: Operations.nullable(),
  prerequisites: StringList,
  frequency: ShortText.nullable(),
  cost: ShortText.nullable(),
  trigger: ShortText.nullable(),
  requirements: ShortText.nullable(),
  access: ShortText.nullable(),
  special: Text.nullable(),
  traits: IdList,
  deprecated: Deprecated,
  meta_data: MetaData,
});
export type AbilityBlock = z.infer<typeof AbilityBlock>;

/** Body of find-ability-block: `type` exact, `traits` and `prerequisites` must all be present. */
export const FindAbilityBlockBody = z.strictObject({
  ...findBase,
  ...traitsFilter,
  type: AbilityBlockType.optional(),
  prerequisites: StringList.optional(),
});
