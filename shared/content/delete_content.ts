import { z } from "zod";
import { Id } from "../common.ts";

/** Every type delete-content accepts (the search content types, hazards and encounters). */
export const DeletableType = z.enum([
  "trait",
  "item",
  "spell",
  "class",
  "archetype",
  "versatile-heritage",
  "class-archetype",
  "ability-block",
  "creature",
  "hazard",
  "ancestry",
  "background",
  "language",
  "content-source",
  "encounter",
]);

/** Body of delete-content. */
export const DeleteContentBody = z.strictObject({ type: DeletableType, id: Id });
export type DeletableType = z.infer<typeof DeletableType>;
