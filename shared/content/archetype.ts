import { z } from "zod";
import { Id } from "../common.ts";
import { contentSchemas, describedFields, findBase, optionFields, recordFields } from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

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

/** The archetype content type: its registry entry. */
export const archetypeType = contentType({
  name: "archetype",
  label: "archetype",
  plural: "archetypes",
  resource: Archetype,
  save: SaveArchetypeBody,
  find: FindArchetypeBody,
  found: FindArchetypeResult,
  searchBucket: "archetypes",
  searchRow: ContentHit,
  createRequires: ["name", "content_source_id"],
  saveRules: [
    "An archetype's linked trait is named `<name> Archetype` (at most 200 characters): a new " +
    "archetype without `trait_id`, or a renamed one whose trait is linked, has a name of at " +
    "most 190 characters.",
  ],
});
