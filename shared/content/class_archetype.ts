import { z } from "zod";
import { Id, JsonObject, OptionalRef } from "../common.ts";
import { FeatureAdjustmentType } from "../enums.ts";
import {
  contentSchemas,
  describedFields,
  findBase,
  Int,
  Operations,
  recordFields,
  ShortText,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

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
  ...describedFields,
  class_id: Id.nullable(),
  archetype_id: OptionalRef,
  artwork_url: ShortText.nullable(),
  operations: Operations.nullable(),
  feature_adjustments: z.array(FeatureAdjustment).max(1_000),
  override_skill_training_base: Int.nullable(),
  override_class_operations: z.boolean(),
  ...recordFields,
});
export type ClassArchetype = z.infer<typeof ClassArchetype>;

/** Body of find-class-archetype. */
export const FindClassArchetypeBody = z.strictObject({ ...findBase, class_id: Id.optional() });

/** The class-archetype content type: its registry entry. */
export const classArchetypeType = contentType({
  name: "class-archetype",
  label: "class archetype",
  plural: "class archetypes",
  resource: ClassArchetype,
  save: SaveClassArchetypeBody,
  find: FindClassArchetypeBody,
  found: FindClassArchetypeResult,
  searchBucket: "class_archetypes",
  searchRow: ContentHit,
  createRequires: ["name", "content_source_id"],
});
