import { z } from "zod";
import { Id } from "../common.ts";
import { contentSchemas, Deprecated, findBase, MetaData, Name, Text } from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

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

/** The trait content type: its registry entry. */
export const traitType = contentType({
  name: "trait",
  label: "trait",
  plural: "traits",
  resource: Trait,
  save: SaveTraitBody,
  find: FindTraitBody,
  found: FindTraitResult,
  searchBucket: "traits",
  searchRow: ContentHit,
  createRequires: ["name", "content_source_id"],
});
