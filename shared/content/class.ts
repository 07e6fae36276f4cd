import { z } from "zod";
import {
  contentSchemas,
  describedFields,
  findBase,
  Int,
  Operations,
  optionFields,
  recordFields,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

/** A class. */
export const { Resource: Class, Save: SaveClassBody, Result: FindClassResult } = contentSchemas(
  "Class",
  {
    ...describedFields,
    operations: Operations.nullable(),
    skill_training_base: Int.nullable(),
    ...optionFields,
    ...recordFields,
  },
);
export type Class = z.infer<typeof Class>;

/** Body of find-class. */
export const FindClassBody = z.strictObject(findBase);

/** The class content type: its registry entry. */
export const classType = contentType({
  name: "class",
  label: "class",
  plural: "classes",
  resource: Class,
  save: SaveClassBody,
  find: FindClassBody,
  found: FindClassResult,
  searchBucket: "classes",
  searchRow: ContentHit,
  createRequires: ["name", "content_source_id"],
});
