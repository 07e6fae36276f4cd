import { z } from "zod";
import { Id } from "../common.ts";
import { contentSchemas, describedFields, findBase, optionFields, recordFields } from "./fields.ts";

/** An archetype; `dedication_feat_id` is its dedication feat (an ability block). */
export const { Resource: Archetype, Save: SaveArchetypeBody, Result: FindArchetypeResult } =
  contentSchemas("Archetype", {
    ...describedFields,
    ...optionFields,
    ...recordFields,
    dedication_feat_id: Id.nullable(),
  });
export type Archetype = z.infer<typeof Archetype>;

/** Body of find-archetype; `dedication_feat_id` finds the archetype of a dedication feat. */
export const FindArchetypeBody = z.strictObject({ ...findBase, dedication_feat_id: Id.optional() });
