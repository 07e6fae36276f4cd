import { z } from "zod";
import { Id } from "../common.ts";
import { ContentRecordType } from "../content_type_names.ts";

/**
 * Every type delete-content accepts: the search content types, hazards, encounters, and the
 * characters and campaigns the web client deletes through it.
 */
export const DeletableType = z.enum([
  ...ContentRecordType.options,
  "content-source",
  "encounter",
  "character",
  "campaign",
]);

/** Body of delete-content. */
export const DeleteContentBody = z.strictObject({ type: DeletableType, id: Id });
export type DeletableType = z.infer<typeof DeletableType>;
