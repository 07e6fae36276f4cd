import { z } from "zod";
import {
  contentSchemas,
  describedFields,
  findBase,
  Operations,
  recordFields,
  ShortText,
} from "./fields.ts";
import { contentType } from "./content_type.ts";
import { ContentHit } from "../search_rows.ts";

/** A background. */
export const { Resource: Background, Save: SaveBackgroundBody, Result: FindBackgroundResult } =
  contentSchemas("Background", {
    ...describedFields,
    operations: Operations.nullable(),
    artwork_url: ShortText.nullable(),
    ...recordFields,
  });
export type Background = z.infer<typeof Background>;

/** Body of find-background. */
export const FindBackgroundBody = z.strictObject(findBase);

/** The background content type: its registry entry. */
export const backgroundType = contentType({
  name: "background",
  label: "background",
  plural: "backgrounds",
  resource: Background,
  save: SaveBackgroundBody,
  find: FindBackgroundBody,
  found: FindBackgroundResult,
  searchBucket: "backgrounds",
  searchRow: ContentHit,
  createRequires: ["name", "content_source_id"],
});
