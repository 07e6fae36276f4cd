import { z } from "zod";
import { Id } from "../common.ts";
import { contentSchemas, Deprecated, findBase, MetaData, Name, Text } from "./fields.ts";

/** A trait; content refers to traits by id. */
export const { Resource: Trait, Save: SaveTraitBody, Result: FindTraitResult } = contentSchemas(
  "Trait",
  {
    name: Name,
    content_source_id: Id,
    description: Text,
    deprecated: Deprecated,
    meta_data: MetaData.extend({
      important: z.boolean().optional(),
      creature_trait: z.boolean().optional(),
      unselectable: z.boolean().optional(),
      class_trait: z.boolean().optional(),
      ancestry_trait: z.boolean().optional(),
      archetype_trait: z.boolean().optional(),
      versatile_heritage_trait: z.boolean().optional(),
    }),
  },
);
export type Trait = z.infer<typeof Trait>;

/** Body of find-trait. */
export const FindTraitBody = z.strictObject(findBase);
