import { z } from "zod";
import { Id, JsonObject, OptionalRef } from "../common.ts";
import { FeatureAdjustmentType, Rarity } from "../enums.ts";
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

/** A change a class archetype makes to one of its class's features. */
export const FeatureAdjustment = z.looseObject({
  fa_id: z.string(),
  type: FeatureAdjustmentType,
  prev_id: Id.nullable().optional(),
  data: JsonObject.nullable().optional(),
}).meta({ id: "FeatureAdjustment" });

/** A class archetype: an archetype that reshapes one class. */
export const {
  Resource: ClassArchetype,
  Save: SaveClassArchetypeBody,
  Result: FindClassArchetypeResult,
} = contentSchemas("ClassArchetype", {
  class_id: Id.nullable(),
  archetype_id: OptionalRef,
  content_source_id: Id,
  name: Name,
  description: Text,
  version: ShortText.nullable(),
  artwork_url: ShortText.nullable(),
  rarity: Rarity,
  operations: Operations.nullable(),
  feature_adjustments: z.array(FeatureAdjustment).max(1_000),
  override_skill_training_base: Int.nullable(),
  override_class_operations: z.boolean(),
  meta_data: MetaData,
  deprecated: z.boolean(),
});
export type ClassArchetype = z.infer<typeof ClassArchetype>;

/** Body of find-class-archetype. */
export const FindClassArchetypeBody = z.strictObject({ ...findBase, class_id: Id.optional() });
