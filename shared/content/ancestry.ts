import { z } from "zod";
import {
  contentSchemas,
  describedFields,
  findBase,
  Operations,
  optionFields,
  recordFields,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

/** An ancestry. */
export const { Resource: Ancestry, Save: SaveAncestryBody, Result: FindAncestryResult } =
  contentSchemas("Ancestry", {
    ...describedFields,
    ...optionFields,
    ...recordFields,
    operations: Operations.nullable(),
  });
export type Ancestry = z.infer<typeof Ancestry>;

/** Body of find-ancestry. */
export const FindAncestryBody = z.strictObject(findBase);

/** The ancestry content type: its registry entry. */
export const ancestryType = contentType({
  name: "ancestry",
  label: "ancestry",
  plural: "ancestries",
  resource: Ancestry,
  save: SaveAncestryBody,
  find: FindAncestryBody,
  found: FindAncestryResult,
  searchBucket: "ancestries",
  searchRow: ContentHit,
  createRequires: ["name", "content_source_id"],
});
