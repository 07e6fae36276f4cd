import { z } from "zod";
import { AbilityBlockActions, AbilityBlockType, Availability } from "../enums.ts";
import {
  contentSchemas,
  describedFields,
  findBase,
  IdList,
  Int,
  Operations,
  recordFields,
  ShortText,
  StringList,
  Text,
  traitsFilter,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { AbilityBlockHit } from "../search_rows.ts";

/** An ability block: an action, feat, physical feature, sense, class feature, heritage or mode. */
export const {
  Resource: AbilityBlock,
  Save: SaveAbilityBlockBody,
  Result: FindAbilityBlockResult,
} = contentSchemas("AbilityBlock", {
  ...describedFields,
  level: Int.nullable(),
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
  ...recordFields,
});
export type AbilityBlock = z.infer<typeof AbilityBlock>;

/** Body of find-ability-block: `type` exact, `traits` and `prerequisites` must all be present. */
export const FindAbilityBlockBody = z.strictObject({
  ...findBase,
  ...traitsFilter,
  type: AbilityBlockType.optional(),
  prerequisites: StringList.optional(),
});

/** The ability-block content type: its registry entry. */
export const abilityBlockType = contentType({
  name: "ability-block",
  label: "ability block",
  plural: "ability blocks",
  resource: AbilityBlock,
  save: SaveAbilityBlockBody,
  find: FindAbilityBlockBody,
  found: FindAbilityBlockResult,
  searchBucket: "ability_blocks",
  searchRow: AbilityBlockHit,
  createRequires: ["name", "type", "content_source_id"],
});
